package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.superstep.shm.ProcessMemory;
import org.lpf4j.testkit.ProcessOutput;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The single-copy path ({@link SingleCopy}) in meshes of threads of this JVM (each a process with
 * its own mesh and connections, {@link MeshTest#job}; the reads go through
 * {@code process_vm_readv} on this JVM's own pid, as between two JVMs): large puts from native
 * and heap sources at odd offsets and lengths, two of them into one destination, and a get's
 * reply stream arrive with every byte right, read in one copy (counted), rank 2's to rank 0 over
 * its large connection; with the probe failing the same goes through the rings; a read that fails
 * fails the reader's sync naming the sender, and every other process's sync too. And the same
 * supersteps in a net job of 3 JVMs.
 */
@Timeout(120)
class SingleCopyTest {
    private static final NetSections SECTIONS = new NetSections(LoopbackNetEngine.PROTOCOL, "singlecopytest", 10_000_000L);
    private static final int N = SingleCopyProgram.N;

    /** Runs the puts and gets of every process to its neighbours. @return per rank: bytes wrong, reads in one copy, sends read so */
    private static long[][] exchange(List<String> log) throws Exception {
        int p = 3;
        long[][] result = new long[p][];
        byte[] key = Handshake.newKey();
        Throwable[] thrown = MeshTest.job(p, key, ThreadLocalRandom.current().nextLong(), log, a -> {}, (rank, mesh) -> {
            long[] bad = new long[1], before = new long[2];
            FatalException f = SECTIONS.run(mesh, mesh.nextSection(), p, ctx -> {
                // The first round makes the connections (a put sent before its connection is made takes the rings).
                bad[0] = SingleCopyProgram.exchange(ctx, 3, round -> {
                    if (round == 1) System.arraycopy(mesh.singleCopies(), 0, before, 0, 2);
                });
            }, Args.NONE, "exec", 1);
            long[] copies = mesh.singleCopies();
            result[rank] = new long[] {bad[0], copies[0] - before[0], copies[1] - before[1], mesh.linkedPeers()};
            mesh.close();
            if (f != null) throw f;
        });
        for (Throwable t : thrown) if (t != null) throw new AssertionError(Arrays.toString(thrown), t);
        return result;
    }

    @Test
    void largePutsAndRepliesArriveInOneCopyWithEveryByteRight() throws Exception {
        assertTrue(ProcessMemory.available(), "process_vm_readv through FFM (is --enable-native-access given?)");
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        long[][] r = exchange(log);
        for (int s = 0; s < 3; s++) {
            assertEquals(2, r[s][3], "rank " + s + " reaches both peers through shared memory: " + log);
            assertEquals(0, r[s][0], "rank " + s + ": bytes wrong");
            // Per round: three puts (the heap one staged) and the reply stream of one get read from a peer.
            assertEquals(8, r[s][1], "rank " + s + " read its peers' payloads in one copy: " + log);
            assertEquals(8, r[s][2], "rank " + s + "'s payloads were read in one copy");
        }
    }

    @Test
    void whereTheProbeFailsTheRingsCarryTheSame() throws Exception {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        SingleCopy.probeFailsForTest = true;
        long[][] r;
        try {
            r = exchange(log);
        } finally {
            SingleCopy.probeFailsForTest = false;
        }
        for (int s = 0; s < 3; s++) {
            assertEquals(0, r[s][0], "rank " + s + ": bytes wrong");
            assertEquals(0, r[s][1], "rank " + s + " read nothing in one copy");
            assertEquals(0, r[s][2]);
        }
        assertTrue(log.stream().anyMatch(l -> l.contains("cannot read rank") && l.contains("the probe was told to fail")), log.toString());
    }

    /** A net job of 3 JVMs ({@code NetLaunch}, as {@code lpf run --engine net -p 3} starts it): the same supersteps, read across JVMs. */
    @Test
    void betweenThreeJvmsEveryByteArrivesInOneCopy() throws Exception {
        String marker = "lpf.test.marker=" + UUID.randomUUID();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process launch = new ProcessBuilder(java, "-D" + marker, "-cp", cp, NetLaunch.class.getName(), "3", java, "-Xss1m",
                "--enable-native-access=ALL-UNNAMED", "-D" + marker, "-Dlpf.engine=net", "-Dlpf.engine.net.syncTimeout=60000",
                "-cp", cp, SingleCopyProgram.class.getName()).redirectErrorStream(true).start();
        try {
            CompletableFuture<String> out = ProcessOutput.drain(launch.getInputStream());
            assertTrue(launch.waitFor(100, TimeUnit.SECONDS), "the job did not end");
            String all = out.get(10, TimeUnit.SECONDS);
            assertEquals(0, launch.exitValue(), all);
            for (int s = 0; s < 3; s++) {
                Matcher m = Pattern.compile("CHECKED pid " + s + " bad (\\d+) reads (\\d+)").matcher(all);
                assertTrue(m.find(), all);
                assertEquals("0", m.group(1), "pid " + s + ": bytes wrong\n" + all);
                // Four payloads per superstep from the second on (the first makes the connections).
                assertTrue(Long.parseLong(m.group(2)) >= 8, "pid " + s + " read its peers' payloads in one copy\n" + all);
            }
            assertFalse(all.contains("WARNING"), "no JVM warning:\n" + all);
        } finally {
            launch.descendants().forEach(ProcessHandle::destroyForcibly);
            launch.destroyForcibly();
            launch.onExit().get(10, TimeUnit.SECONDS);
            List<String> left = ProcessHandle.allProcesses()
                    .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false)).map(h -> h.pid() + "").toList();
            assertTrue(left.isEmpty(), "processes of the job left behind: " + left);
        }
    }

    /**
     * A read that fails fails the sync naming the sender, everywhere: as dead when its process is
     * gone (ESRCH), as a sender whose memory is gone when it runs (EFAULT: its section ended after
     * a failure, or it freed the memory).
     */
    @ParameterizedTest(name = "errno {0}")
    @ValueSource(ints = {ProcessMemory.ESRCH, ProcessMemory.EFAULT})
    void aReadThatFailsFailsTheSyncNamingTheSender(int errno) throws Exception {
        SingleCopy.readFailsWithForTest = errno;
        byte[] key = Handshake.newKey();
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        long[] partial = new long[2];
        Throwable[] thrown = MeshTest.job(2, key, ThreadLocalRandom.current().nextLong(), log, a -> {}, (rank, mesh) -> {
            FatalException f = SECTIONS.run(mesh, mesh.nextSection(), 2, ctx -> {
                int s = ctx.pid();
                MemorySegment x = Arena.ofAuto().allocate(2L * N);
                x.asSlice(0, N).fill((byte) (s + 1));
                ctx.resizeMemoryRegister(1);
                ctx.resizeMessageQueue(4);
                ctx.sync();
                Memslot xs = ctx.registerGlobal(x);
                ctx.sync();
                if (s == 1) SingleCopy.readFailsForTest = Thread.currentThread(); // pid 1's reads fail, as if pid 0 had died as it read
                try {
                    ctx.put(xs, 0, 1 - s, xs, N, N);
                    ctx.put(xs, 0, 1 - s, xs, N, 8); // a small one after it: no part of the superstep is applied
                    ctx.sync();
                } finally {
                    partial[s] = x.get(ValueLayout.JAVA_LONG, N);
                }
            }, Args.NONE, "exec", 1);
            mesh.close();
            if (f != null) throw f;
        });
        SingleCopy.readFailsForTest = null;
        SingleCopy.readFailsWithForTest = ProcessMemory.ESRCH;
        FatalException reader = assertInstanceOf(FatalException.class, thrown[1], () -> Arrays.toString(thrown));
        assertTrue(reader.getMessage().contains("pid 0's payload could not be read"), reader.getMessage());
        if (errno == ProcessMemory.EFAULT) {
            assertTrue(reader.getMessage().contains("its memory is gone") && !reader.getMessage().contains("JVM died"), reader.getMessage());
        } else {
            assertTrue(reader.getMessage().contains("died or was killed"), reader.getMessage());
        }
        assertInstanceOf(FatalException.class, thrown[0], () -> Arrays.toString(thrown));
        assertEquals(0, partial[1], "pid 1 applied no put of the failed superstep");
    }
}
