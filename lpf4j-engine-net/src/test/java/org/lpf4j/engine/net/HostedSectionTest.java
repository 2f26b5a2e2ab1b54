package org.lpf4j.engine.net;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.boot.LocalJob;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sections whose processes a host framework started ({@link HostedSection}): members in one JVM,
 * each on its own thread with a session of an in-JVM boot job, as several Spark tasks of one
 * executor are. The section runs at every size; members with another secret, or of another
 * attempt, never join; a member that throws fails the section at every member.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostedSectionTest {
    @AfterEach
    void clear() { ParameterRegistry.global().clear(NetParameters.SETUP_MILLIS.key()); }

    /** Runs {@code spmd} at p members, member r with {@code secrets[r]}; returns each member's failure (null: none). */
    private static Throwable[] run(int p, byte[][] secrets, Spmd spmd) throws InterruptedException {
        Throwable[] failures = new Throwable[p];
        List<Thread> threads = new ArrayList<>();
        try (LocalJob job = new LocalJob(p)) {
            for (int r = 0; r < p; r++) {
                int rank = r;
                threads.add(Thread.ofPlatform().name("member-" + r).start(() -> {
                    try (var session = job.session(rank)) {
                        HostedSection.run(session, InetAddress.getLoopbackAddress(), secrets[rank], "test", spmd);
                    } catch (Throwable t) {
                        failures[rank] = t;
                    }
                }));
            }
            for (Thread t : threads) t.join();
        }
        return failures;
    }

    private static byte[][] same(int p, byte[] secret) {
        byte[][] s = new byte[p][];
        Arrays.fill(s, secret);
        return s;
    }

    @ParameterizedTest(name = "p = {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void everyMemberIsTheProcessOfItsRank(int p) throws Exception {
        long[][] seen = new long[p][];
        Throwable[] f = run(p, same(p, HostedSection.newSecret()), ctx -> {
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(ctx.nprocs());
            ctx.sync();
            MemorySegment all = Arena.ofShared().allocate(8L * ctx.nprocs(), 8);
            all.set(ValueLayout.JAVA_LONG, 8L * ctx.pid(), 100 + ctx.pid());
            Memslot slot = ctx.registerGlobal(all);
            ctx.sync();
            for (int q = 0; q < ctx.nprocs(); q++) ctx.put(slot, 8L * ctx.pid(), q, slot, 8L * ctx.pid(), 8);
            ctx.sync();
            seen[ctx.pid()] = all.toArray(ValueLayout.JAVA_LONG);
        });
        for (int r = 0; r < p; r++) assertNull(f[r], "member " + r);
        long[] expected = new long[p];
        for (int q = 0; q < p; q++) expected[q] = 100 + q;
        for (int r = 0; r < p; r++) assertArrayEquals(expected, seen[r], "pid " + r + " got every pid's value");
    }

    @Test
    void aMemberThatThrowsFailsTheSectionAtEveryMember() throws Exception {
        Throwable[] f = run(3, same(3, HostedSection.newSecret()), ctx -> {
            ctx.sync();
            if (ctx.pid() == 2) throw new IllegalStateException("pid 2 gives up");
            ctx.sync();
        });
        for (int r = 0; r < 3; r++) assertInstanceOf(FatalException.class, f[r], "member " + r);
        assertTrue(String.valueOf(f[0].getCause()).contains("pid 2 gives up"), "pid 0 carries the cause: " + f[0]);
    }

    @Test
    void aMemberWithAnotherSecretNeverJoinsAndNoneHangs() throws Exception {
        ParameterRegistry.global().set(NetParameters.SETUP_MILLIS.key(), "3000");
        byte[] secret = HostedSection.newSecret();
        byte[][] secrets = same(3, secret);
        secrets[1] = HostedSection.newSecret();
        boolean[] ran = new boolean[3];
        long t0 = System.nanoTime();
        Throwable[] f = run(3, secrets, ctx -> ran[ctx.pid()] = true);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "ended within the set-up time");
        for (int r = 0; r < 3; r++) {
            assertInstanceOf(FatalException.class, f[r], "member " + r);
            assertFalse(ran[r], "member " + r + " never ran the function");
        }
    }

    @Test
    void membersOfDifferentAttemptsNeverJoin() throws Exception {
        ParameterRegistry.global().set(NetParameters.SETUP_MILLIS.key(), "3000");
        byte[] secret = HostedSection.newSecret();
        assertFalse(Arrays.equals(HostedSection.forAttempt(secret, 0), HostedSection.forAttempt(secret, 1)));
        assertArrayEquals(HostedSection.forAttempt(secret, 1), HostedSection.forAttempt(secret, 1), "a function of secret and attempt");
        byte[][] secrets = same(2, HostedSection.forAttempt(secret, 0));
        secrets[1] = HostedSection.forAttempt(secret, 1);
        Throwable[] f = run(2, secrets, ctx -> ctx.sync());
        assertNotNull(f[0]);
        assertNotNull(f[1]);
    }

    @Test
    void badArgumentsAreRefusedNamingTheCall() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostedSection.run(new LocalJob(1).session(0),
                InetAddress.getLoopbackAddress(), new byte[3], "test", ctx -> {}));
        assertTrue(e.getMessage().contains("HostedSection.run") && e.getMessage().contains("3 bytes"), e.getMessage());
        assertEquals(HostedSection.newSecret().length, HostedSection.forAttempt(HostedSection.newSecret(), 7).length);
    }
}
