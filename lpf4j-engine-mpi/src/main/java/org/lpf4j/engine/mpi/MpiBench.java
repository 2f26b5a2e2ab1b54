package org.lpf4j.engine.mpi;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The side-by-side benchmark of the MPI engine (run under an MPI launcher, e.g.
 * {@code mpirun -n 4 java ... org.lpf4j.engine.mpi.MpiBench}): for p = 2 and 4 (as far as the job
 * has ranks), the engine's empty sync, 8-byte put + sync, 1 MiB put + sync and a 64 KiB total
 * exchange (each process puts 64 KiB / p to every process), beside raw MPI through the same
 * binding on the same communicator: {@code MPI_Barrier}, and {@code MPI_Put} of 1 MiB +
 * {@code MPI_Win_fence}. Prints medians of {@code reps} batches (pid 0's clock) and the ratios.
 *
 * <p>Arguments: {@code [reps]} (default 9).
 */
public final class MpiBench {
    private MpiBench() {}

    static final long MIB = 1 << 20, EXCHANGE = 64 * 1024;

    /** One p: every measurement, on every process of the section. */
    static final class Cells implements Spmd {
        private static final long serialVersionUID = 1L;
        static volatile double[] last;
        private final int reps;

        Cells(int reps) { this.reps = reps; }

        @Override
        public void run(Context ctx) {
            int s = ctx.pid(), p = ctx.nprocs(), next = (s + 1) % p;
            MpiContext mc = (MpiContext) ctx;
            Mpi mpi = mc.mpi();
            long comm = mc.comm();
            ctx.resizeMemoryRegister(4);
            ctx.resizeMessageQueue(2L * p + 2);
            ctx.sync();
            try (Arena a = Arena.ofShared()) {
                MemorySegment src = a.allocate(MIB), dst = a.allocate(MIB * p), ex = a.allocate(EXCHANGE), exIn = a.allocate(EXCHANGE);
                Memslot srcSlot = ctx.registerGlobal(src), dstSlot = ctx.registerGlobal(dst);
                Memslot exSlot = ctx.registerGlobal(ex), exInSlot = ctx.registerGlobal(exIn);
                ctx.sync();
                long chunk = EXCHANGE / p;
                double[] r = new double[7];
                r[0] = median(ctx, 4000, ctx::sync);
                r[1] = median(ctx, 4000, () -> {
                    ctx.put(srcSlot, 0, next, dstSlot, 0, 8);
                    ctx.sync();
                });
                r[2] = median(ctx, 60, () -> {
                    ctx.put(srcSlot, 0, next, dstSlot, MIB * s, MIB);
                    ctx.sync();
                });
                r[3] = median(ctx, 400, () -> {
                    for (int q = 0; q < p; q++) ctx.put(exSlot, chunk * q, q, exInSlot, chunk * s, chunk);
                    ctx.sync();
                });
                r[4] = median(ctx, 4000, () -> mpi.barrier(comm));
                long win = mpi.winCreate(dst, comm);
                mpi.winFence(0, win);
                r[5] = median(ctx, 60, () -> {
                    mpi.putBytes(src, (int) MIB, next, MIB * s, win);
                    mpi.winFence(0, win);
                });
                mpi.winFree(win);
                r[6] = p;
                ctx.deregister(srcSlot);
                ctx.deregister(dstSlot);
                ctx.deregister(exSlot);
                ctx.deregister(exInSlot);
                if (s == 0) last = r;
            }
        }

        private double median(Context ctx, int iters, Runnable op) {
            for (int i = 0; i < iters / 4; i++) op.run();
            double[] t = new double[reps];
            for (int k = 0; k < reps; k++) {
                ctx.sync();
                long t0 = System.nanoTime();
                for (int i = 0; i < iters; i++) op.run();
                t[k] = (System.nanoTime() - t0) / 1e9 / iters;
            }
            Arrays.sort(t);
            return t[reps / 2];
        }
    }

    /** @param args {@code [reps]} */
    public static void main(String[] args) {
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        var root = Lpf.root("mpi");
        int size = root.probe().p();
        Mpi mpi = MpiRuntime.get().mpi;
        System.out.println("lpf4j MPI engine benchmark: " + mpi.abiName() + " (" + MpiRuntime.get().libraryVersion
                + "), medians of " + reps + " batches");
        for (int p : new int[] {2, 4}) {
            if (p > size) break;
            root.exec(p, new Cells(reps));
            double[] r = Cells.last;
            System.out.printf("p=%d  empty sync %.2f us (MPI_Barrier %.2f us, ratio %.2fx)%n", p, r[0] * 1e6, r[4] * 1e6, r[0] / r[4]);
            System.out.printf("p=%d  8-byte put + sync %.2f us%n", p, r[1] * 1e6);
            System.out.printf("p=%d  1 MiB put + sync %.1f us = %.2f GB/s per process (MPI_Put 1 MiB + Win_fence %.1f us = %.2f GB/s, ratio %.2fx)%n",
                    p, r[2] * 1e6, MIB / r[2] / 1e9, r[5] * 1e6, MIB / r[5] / 1e9, r[5] / r[2]);
            System.out.printf("p=%d  64 KiB total exchange + sync %.1f us%n", p, r[3] * 1e6);
        }
    }
}
