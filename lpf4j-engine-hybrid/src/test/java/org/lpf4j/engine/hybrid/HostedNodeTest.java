package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Machine;
import org.lpf4j.Memslot;
import org.lpf4j.engine.net.HostedSection;
import org.lpf4j.spi.kit.ProbeHarness;
import org.lpf4j.spi.boot.LocalJob;
import org.lpf4j.testkit.NetJob;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hybrid sections whose processes a host placed ({@link HostedNode}): threads that join nodes in
 * any pid order, the nodes' leaders meeting in a net-engine hosted section, as a Spark stage's
 * tasks do. The whole conformance suite runs on them unchanged ({@link HostedEngine}); a
 * process's pid is the one the host gave it, whichever node it is on; failures reach every
 * process; a member that never joins is named, not waited for; nothing stays in the registry.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostedNodeTest {
    @AfterEach
    void nothingLeft() { assertEquals(0, HostedNode.gatherings(), "hosted nodes left in the registry"); }

    /**
     * The suite at p = 5 (nodes of 2 + 2 + 1 with interleaved pids), about 40 s on 2 busy cores;
     * {@code -Dlpf.test.long=true} runs the whole matrix (p = 1, 2, 3, 4, 5, 8: 90 s).
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void theConformanceSuitePassesOnHostedNodes() throws Exception {
        boolean whole = Boolean.getBoolean("lpf.test.long");
        NetJob.assertSuitePassed(NetJob.run(1, List.of("-Dlpf.test.engine=hosted", "-Dlpf.engine.threads.procs=8",
                "-Dlpf.test.procs=" + (whole ? "1,2,3,4,5,8" : "5")), NetJob.CONFORMANCE_MAIN), whole ? 150 : 40);
    }

    /** Every process puts its pid to the next pid's slot and gets the previous one's: pids are the host's, across and within nodes. */
    @ParameterizedTest(name = "p = {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void pidsAreTheHostsWhateverNodeTheyAreOn(int p) {
        long[][] seen = new long[p][];
        HostedEngine.run(HostedEngine.interleaved(p, HostedEngine.nodes(p)), ctx -> {
            int me = ctx.pid(), n = ctx.nprocs();
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            MemorySegment m = Arena.ofAuto().allocate(24, 8);
            m.set(ValueLayout.JAVA_LONG, 0, 1000 + me);
            Memslot slot = ctx.registerGlobal(m);
            ctx.sync();
            ctx.put(slot, 0, (me + 1) % n, slot, 8, 8);
            ctx.get((me + n - 1) % n, slot, 0, slot, 16, 8);
            ctx.sync();
            seen[me] = new long[] {n, m.get(ValueLayout.JAVA_LONG, 8), m.get(ValueLayout.JAVA_LONG, 16)};
            ctx.deregister(slot);
        }, Args.NONE, "test");
        for (int pid = 0; pid < p; pid++) {
            long left = 1000 + (pid + p - 1) % p;
            assertArrayEquals(new long[] {p, left, left}, seen[pid], "pid " + pid);
        }
    }

    /**
     * The nodes of a Spark stage are executors with histories of their own: one may have the
     * figures of a layout cached and another not. probe() must still be collective and identical
     * everywhere: pid 0 decides (measuring when its JVM had nothing cached).
     */
    @ParameterizedTest(name = "pid 0''s node had figures cached: {0}")
    @ValueSource(booleans = {true, false})
    void probeAgreesOnPidZerosFiguresWhateverTheOtherNodesCached(boolean pid0Cached) {
        int p = 4;
        ProbeHarness.Fit fake = new ProbeHarness.Fit(new long[] {1, 1024}, new double[] {7.5, 7.25}, new double[] {12345, 12000});
        HybridProbe.Figures cached = new HybridProbe.Figures(fake, fake, fake);
        double[][] seen = new double[p][];
        try {
            HostedEngine.run(HostedEngine.interleaved(p, 2), ctx -> {
                HybridContext h = assertInstanceOf(HybridContext.class, ctx);
                boolean nodeZero = ctx.pid() % 2 == 0; // interleaved: node 0 holds the even pids
                h.cachedAtStart = nodeZero == pid0Cached ? cached : null;
                ctx.resizeMemoryRegister(2);
                ctx.resizeMessageQueue(p);
                ctx.sync();
                Memslot before = ctx.registerGlobal(Arena.ofAuto().allocate(8, 8));
                Machine m = ctx.probe();
                Machine again = ctx.probe();
                // The program's capacities and slots are its own again after probe (it agrees in a fresh context).
                Memslot after = ctx.registerGlobal(Arena.ofAuto().allocate(8, 8));
                ctx.sync();
                ctx.put(before, 0, (ctx.pid() + 1) % p, after, 0, 8);
                ctx.sync();
                ctx.deregister(before);
                ctx.deregister(after);
                seen[ctx.pid()] = new double[] {m.g(1024), m.l(1024), again.g(1024), m.levels().orElseThrow().inter().g(1024)};
            }, Args.NONE, "probe-agreement");
            for (int pid = 0; pid < p; pid++) assertArrayEquals(seen[0], seen[pid], "pid " + pid + " against pid 0");
            if (pid0Cached) assertEquals(7.25, seen[0][0], "pid 0's cached g");
            else assertNotEquals(7.25, seen[0][0], "measured, not the other node's cached figures");
        } finally {
            HybridProbe.forgetForTest(); // the made-up figures are for this test only
        }
    }

    @Test
    void aProcessThatThrowsFailsTheSectionAtEveryProcess() {
        int p = 5;
        IllegalStateException thrown = new IllegalStateException("pid 3 gives up");
        AtomicReference<Throwable> seenBy1 = new AtomicReference<>();
        FatalException f = assertThrows(FatalException.class, () -> HostedEngine.run(HostedEngine.interleaved(p, 2), ctx -> {
            if (ctx.pid() == 3) throw thrown;
            try {
                ctx.sync();
            } catch (FatalException e) {
                if (ctx.pid() == 1) seenBy1.set(e);
                throw e;
            }
        }, Args.NONE, "test"));
        // The cause crossed the section over the nodes: a copy, same class and message.
        assertEquals(thrown.getClass(), f.getCause().getClass(), f::toString);
        assertEquals(thrown.getMessage(), f.getCause().getMessage(), f::toString);
        assertInstanceOf(FatalException.class, seenBy1.get(), "pid 1 (node 1) went on");
    }

    @Test
    void aMemberThatDoesNotJoinInTimeIsNamedAndNotWaitedFor() throws Exception {
        int[][] groups = {{0, 1}};
        String section = "late-" + System.nanoTime();
        FatalException led;
        try (LocalJob job = new LocalJob(1); HostedNode.Member m = HostedNode.join(section, groups, 0, 1, 2);
             var session = job.session(0)) {
            led = assertThrows(FatalException.class, () -> m.lead(ctx -> ctx.sync(), Duration.ofMillis(200),
                    f -> HostedSection.run(session, InetAddress.getLoopbackAddress(), HostedSection.newSecret(), "test", f)));
        }
        assertTrue(led.getMessage().contains("missing pids 1"), led::getMessage);
        for (Throwable c = led; c != null; c = c.getCause()) {
            // A member that did not arrive is a failure a retry may not repeat, not a programming error.
            assertFalse(c instanceof IllegalStateException, "no IllegalStateException in the chain: " + c);
        }
        // The node left the registry with its leader (the only member that joined); the late member
        // meets the marker and learns the failure at once.
        assertEquals(0, HostedNode.gatherings(), "the node left the registry when its last member that joined left");
        long start = System.nanoTime();
        FatalException f = assertThrows(FatalException.class, () -> HostedNode.join(section, groups, 1, 1, 2));
        assertTrue(f.getMessage().contains("pid 1 joined after its node had ended"), f::getMessage);
        assertTrue(f.getMessage().contains("missing pids 1"), f::getMessage);
        assertTrue(System.nanoTime() - start < 10_000_000_000L, "the late member waited");
    }

    @Test
    void aNodeWhoseLeaderNeverComesLeavesTheRegistryWithItsMembersAndALateLeaderFailsAtOnce() {
        int[][] groups = {{0, 1, 2}};
        String section = "leaderless-" + System.nanoTime();
        try (HostedNode.Member m = HostedNode.join(section, groups, 1, 1, 3)) {
            FatalException f = assertThrows(FatalException.class, () -> m.run(ctx -> ctx.sync(), Duration.ofMillis(200)));
            assertTrue(f.getMessage().contains("for its node's leader (pid 0)"), f::getMessage);
        }
        assertEquals(0, HostedNode.gatherings(), "the member that gave up took the node out of the registry");
        FatalException late = assertThrows(FatalException.class, () -> HostedNode.join(section, groups, 0, 1, 3));
        assertTrue(late.getMessage().contains("pid 0 joined after its node had ended: its members 1 gave up"), late::getMessage);
        assertEquals(0, HostedNode.gatherings(), "a refused join leaves nothing");
    }

    @Test
    void groupsThatDoNotHoldEveryPidOnceAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HostedNode.join("bad", new int[][] {{0, 1}, {1}}, 0, 1, 1));
        assertTrue(e.getMessage().contains("pid 1"), e::getMessage);
        assertThrows(IllegalArgumentException.class, () -> HostedNode.join("bad", new int[][] {{0}, {}}, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> HostedNode.join("bad", new int[][] {{0, 1}}, 2, 1, 1));
    }
}
