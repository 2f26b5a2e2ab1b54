package org.lpf4j.engine.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run under mpirun by {@link BindingTest}: exercises every binding call a rank makes, checks the
 * results, and prints {@code OK rank size} or throws (a non-zero exit fails the job).
 */
public final class BindingSmokeMain {
    private BindingSmokeMain() {}

    public static void main(String[] args) {
        Mpi mpi = Mpi.load(System.getProperty("lpf.engine.mpi.library"));
        int level = mpi.initThread(Mpi.THREAD_SERIALIZED);
        long w = mpi.commWorld();
        int r = mpi.rank(w), p = mpi.size(w);
        try (Arena a = Arena.ofConfined()) {
            // Alltoall: rank r sends byte (r*16 + q) to q.
            MemorySegment s = a.allocate(p), d = a.allocate(p);
            for (int q = 0; q < p; q++) s.set(ValueLayout.JAVA_BYTE, q, (byte) (r * 16 + q));
            mpi.alltoallBytes(s, d, 1, w);
            for (int q = 0; q < p; q++) check(d.get(ValueLayout.JAVA_BYTE, q) == (byte) (q * 16 + r), "alltoall from " + q);
            // Isend/Irecv ring.
            MemorySegment out = a.allocate(8), in = a.allocate(8), reqs = mpi.requests(a, 2);
            out.set(ValueLayout.JAVA_LONG, 0, 1000L + r);
            mpi.irecvBytes(in, 8, (r + p - 1) % p, 7, w, reqs, 0);
            mpi.isendBytes(out, 8, (r + 1) % p, 7, w, reqs, 1);
            mpi.waitall(2, reqs);
            check(in.get(ValueLayout.JAVA_LONG, 0) == 1000L + (r + p - 1) % p, "ring");
            // Allreduce.
            MemorySegment one = a.allocate(8), sum = a.allocate(8);
            one.set(ValueLayout.JAVA_LONG, 0, r + 1);
            mpi.allreduceLongs(one, sum, 1, mpi.opSum(), w);
            check(sum.get(ValueLayout.JAVA_LONG, 0) == (long) p * (p + 1) / 2, "allreduce");
            // Split: even and odd ranks.
            long half = mpi.split(w, r % 2, r);
            check(mpi.size(half) == (p + 1 - r % 2) / 2, "split size");
            mpi.barrier(half);
            mpi.free(half);
            // RMA: put my rank into slot r of everyone's window.
            MemorySegment win = a.allocate(8L * p), src = a.allocate(8);
            src.set(ValueLayout.JAVA_LONG, 0, 77L + r);
            long h = mpi.winCreate(win, w);
            mpi.winFence(mpi.modeNoPrecede(), h);
            for (int q = 0; q < p; q++) mpi.putBytes(src, 8, q, 8L * r, h);
            mpi.winFence(mpi.modeNoSucceed(), h);
            for (int q = 0; q < p; q++) check(win.get(ValueLayout.JAVA_LONG, 8L * q) == 77L + q, "put from " + q);
            mpi.winFree(h);
            // An error comes back as an exception naming the call.
            try {
                mpi.sendBytes(out, 8, p + 5, 0, w);
                throw new AssertionError("MPI_Send to rank " + (p + 5) + " did not fail");
            } catch (MpiException e) {
                check(e.getMessage().startsWith("MPI_Send(count=8, dest=" + (p + 5)), "error message: " + e.getMessage());
            }
        }
        // The JVM's own SIGSEGV handling (implicit null checks) still works after MPI_Init.
        int npes = 0;
        Object[] holder = {null};
        for (int i = 0; i < 200_000; i++) {
            try {
                npes += holder[0].hashCode();
            } catch (NullPointerException e) {
                npes++;
            }
        }
        check(npes == 200_000, "NPE loop");
        mpi.barrier(w);
        String version = mpi.libraryVersion();
        System.out.println("OK " + r + " " + p + " abi=" + mpi.abiName() + " level=" + level + " version=" + version.lines().findFirst().orElse(""));
        mpi.finish();
    }

    private static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError("BindingSmokeMain: " + what);
    }
}
