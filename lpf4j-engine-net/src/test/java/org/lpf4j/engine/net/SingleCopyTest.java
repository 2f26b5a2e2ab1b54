package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.superstep.shm.ProcessMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The single-copy path ({@link SingleCopy}) in meshes of threads of this JVM (each a process with
 * its own mesh and connections, {@link MeshTest#job}; the reads go through
 * {@code process_vm_readv} on this JVM's own pid, as between two JVMs): large puts from native
 * and heap sources at odd offsets and lengths, two of them into one destination, and a get's
 * reply stream arrive with every byte right, read in one copy (counted), rank 2's to rank 0 over
 * its large connection; with the probe failing the same goes through the rings; a read that fails
 * fails the reader's sync naming the sender, and every other process's sync too.
 */
@Timeout(120)
class SingleCopyTest {
    private static final NetSections SECTIONS = new NetSections(LoopbackNetEngine.PROTOCOL, "singlecopytest", 10_000_000L);
    private static final int N = 300_001;

    private static byte value(int s, long i, int heap) { return (byte) (i * 7 + s * 13 + (i >>> 9) + heap); }

    /** Runs the puts and gets of every process to its neighbours. @return per rank: bytes wrong, reads in one copy, sends read so */
    private static long[][] exchange(List<String> log) throws Exception {
        int p = 3;
        long[][] result = new long[p][];
        byte[] key = Handshake.newKey();
        Throwable[] thrown = MeshTest.job(p, key, ThreadLocalRandom.current().nextLong(), log, a -> {}, (rank, mesh) -> {
            long[] bad = new long[1], before = new long[2];
            FatalException f = SECTIONS.run(mesh, mesh.nextSection(), p, ctx -> {
                int s = ctx.pid(), n = ctx.nprocs();
                MemorySegment src = Arena.ofAuto().allocate(N), heap = MemorySegment.ofArray(new byte[N]);
                MemorySegment dst = Arena.ofAuto().allocate(4L * N + 64);
                for (long i = 0; i < N; i++) {
                    src.set(ValueLayout.JAVA_BYTE, i, value(s, i, 0));
                    heap.set(ValueLayout.JAVA_BYTE, i, value(s, i, 1));
                }
                ctx.resizeMemoryRegister(3);
                ctx.resizeMessageQueue(4 * n);
                ctx.sync();
                Memslot ss = ctx.registerGlobal(src), hs = ctx.registerLocal(heap), ds = ctx.registerGlobal(dst);
                ctx.sync();
                int to = (s + 1) % n, from = (s - 1 + n) % n, getFrom = (s + 2) % n;
                for (int round = 0; round < 3; round++) {
                    // The first round makes the connections (a put sent before its connection is made takes the rings).
                    if (round == 1) System.arraycopy(mesh.singleCopies(), 0, before, 0, 2);
                    dst.fill((byte) 0);
                    ctx.sync();
                    ctx.put(ss, 3, to, ds, 5, 200_003);
                    ctx.put(ss, 1000, to, ds, 5 + 200_003 + 1, 70_001); // the same destination, after the first
                    ctx.put(hs, 7, to, ds, 2L * N + 1, 100_000); // a heap source: staged in native memory first
                    ctx.get(getFrom, ss, 11, ds, 3L * N + 3, 90_000);
                    ctx.sync();
                    for (long i = 0; i < 200_003; i++) if (dst.get(ValueLayout.JAVA_BYTE, 5 + i) != value(from, 3 + i, 0)) bad[0]++;
                    if (dst.get(ValueLayout.JAVA_BYTE, 5 + 200_003) != 0) bad[0]++;
                    for (long i = 0; i < 70_001; i++) {
                        if (dst.get(ValueLayout.JAVA_BYTE, 5 + 200_004 + i) != value(from, 1000 + i, 0)) bad[0]++;
                    }
                    for (long i = 0; i < 100_000; i++) if (dst.get(ValueLayout.JAVA_BYTE, 2L * N + 1 + i) != value(from, 7 + i, 1)) bad[0]++;
                    for (long i = 0; i < 90_000; i++) if (dst.get(ValueLayout.JAVA_BYTE, 3L * N + 3 + i) != value(getFrom, 11 + i, 0)) bad[0]++;
                    if (dst.get(ValueLayout.JAVA_BYTE, 3L * N + 2) != 0 || dst.get(ValueLayout.JAVA_BYTE, 3L * N + 3 + 90_000) != 0) bad[0]++;
                }
                ctx.deregister(ss);
                ctx.deregister(hs);
                ctx.deregister(ds);
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

    @Test
    void aReadThatFailsFailsTheSyncNamingTheSender() throws Exception {
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
        FatalException reader = assertInstanceOf(FatalException.class, thrown[1], () -> Arrays.toString(thrown));
        assertTrue(reader.getMessage().contains("pid 0's payload could not be read"), reader.getMessage());
        assertInstanceOf(FatalException.class, thrown[0], () -> Arrays.toString(thrown));
        assertEquals(0, partial[1], "pid 1 applied no put of the failed superstep");
    }
}
