package org.lpf4j.engine.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Raw MPI through this engine's binding, the yardstick the engine's figures are compared with:
 * {@code MPI_Barrier}; {@code MPI_Alltoall} of the engine's per-pair header (what an empty sync
 * exchanges); {@code MPI_Put} of a block to the next rank + {@code MPI_Win_fence}; an
 * {@code Isend}/{@code Irecv} of a block to/from the neighbours + {@code Waitall}. Run under an MPI
 * launcher; rank 0 prints medians of {@code reps} batches. Each operation is warmed up for 0.5 s
 * first, so about 3 s per run.
 *
 * <p>It lives in the engine's test tree, not in the shipped jar: nothing shipped runs it, it needs
 * only the engine's public binding ({@link Mpi}), and the tests' {@code MpiJob} starts it under
 * both launchers ({@link RawMpiBenchTest}, with {@code -Dlpf.test.bench=true}). Its figures are in
 * {@code docs/performance.md}.
 *
 * <p>Usage: {@code RawMpiBench [blockBytes] [reps]}.
 */
public final class RawMpiBench {
    private RawMpiBench() {}

    /** @param args {@code [blockBytes] [reps]} */
    public static void main(String[] args) {
        long block = args.length > 0 ? Long.parseLong(args[0]) : 1 << 20;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        Mpi mpi = Mpi.load(System.getProperty("lpf.engine.mpi.library"));
        if (!mpi.initialized()) mpi.initThread(Mpi.THREAD_SERIALIZED);
        long w = mpi.commWorld();
        int r = mpi.rank(w), p = mpi.size(w);
        try (Arena a = Arena.ofShared()) {
            MemorySegment hs = a.allocate(40L * p), hr = a.allocate(40L * p);
            MemorySegment win = a.allocate(block * p), src = a.allocate(block), dst = a.allocate(block);
            MemorySegment reqs = mpi.requests(a, 2);
            long h = mpi.winCreate(win, w);
            int nb = (int) block;
            double barrier = median(reps, 2000, () -> mpi.barrier(w), mpi, w);
            double alltoall = median(reps, 2000, () -> mpi.alltoallBytes(hs, hr, 40, w), mpi, w);
            double allreduce = median(reps, 2000, () -> mpi.allreduceLongs(hs, hr, 2, mpi.opBor(), w), mpi, w);
            mpi.winFence(0, h);
            double put = median(reps, 50, () -> {
                mpi.putBytes(src, nb, (r + 1) % p, block * r, h);
                mpi.winFence(0, h);
            }, mpi, w);
            double sendrecv = median(reps, 50, () -> {
                mpi.irecvBytes(dst, nb, (r + p - 1) % p, 3, w, reqs, 0);
                mpi.isendBytes(src, nb, (r + 1) % p, 3, w, reqs, 1);
                mpi.waitall(2, reqs);
            }, mpi, w);
            mpi.winFree(h);
            if (r == 0) {
                System.out.printf("raw MPI p=%d (%s): MPI_Barrier %.2f us; MPI_Alltoall(40 B) %.2f us; MPI_Allreduce(2 longs, BOR) %.2f us;"
                                + " MPI_Put %d B + Win_fence %.1f us = %.2f GB/s; Isend/Irecv %d B + Waitall %.1f us = %.2f GB/s%n",
                        p, mpi.abiName(), barrier * 1e6, alltoall * 1e6, allreduce * 1e6, block, put * 1e6, block / put / 1e9,
                        block, sendrecv * 1e6, block / sendrecv / 1e9);
            }
        }
        mpi.finish();
    }

    /**
     * Warm-up per operation: the JIT compiles the downcall path only after thousands of calls, and a
     * warm-up of 50 calls timed cold downcalls (several times the warm figure; docs/performance.md).
     */
    private static final long WARM_NANOS = 500_000_000L;

    /**
     * @return the median over {@code reps} batches of the seconds per iteration (rank 0's clock,
     *         batches aligned by a barrier), after every rank ran {@code op} for at least
     *         {@link #WARM_NANOS} (rank 0's clock decides, so all run it equally often)
     */
    static double median(int reps, int iters, Runnable op, Mpi mpi, long comm) {
        long end = System.nanoTime() + WARM_NANOS;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment more = a.allocate(8);
            do {
                for (int i = 0; i < iters; i++) op.run();
                more.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, System.nanoTime() < end ? 1 : 0);
                mpi.bcastBytes(more, 8, 0, comm);
            } while (more.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0) != 0);
        }
        double[] t = new double[reps];
        for (int k = 0; k < reps; k++) {
            mpi.barrier(comm);
            long t0 = System.nanoTime();
            for (int i = 0; i < iters; i++) op.run();
            t[k] = (System.nanoTime() - t0) / 1e9 / iters;
        }
        Arrays.sort(t);
        return t[reps / 2];
    }
}
