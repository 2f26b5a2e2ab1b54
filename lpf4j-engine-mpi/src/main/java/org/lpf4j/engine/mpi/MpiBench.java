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
 * <p>Arguments (what {@code lpf bench --engine mpi} passes, see
 * {@link org.lpf4j.spi.EngineProvider#launchedBenchmark()}): {@code [--reps R] [--procs 2,4] [--quick]}
 * (default 9 repetitions, p = 2 and 4; {@code --quick}: a tenth of the steps per repetition); a
 * single number alone is taken as R. Each p runs as its own {@code exec} on the first p ranks.
 */
public final class MpiBench {
    private MpiBench() {}

    static final long MIB = 1 << 20, EXCHANGE = 64 * 1024;

    /** One p: every measurement, on every process of the section. */
    static final class Cells implements Spmd {
        private static final long serialVersionUID = 1L;
        static volatile double[] last;
        private final int reps, divisor;

        Cells(int reps, int divisor) {
            this.reps = reps;
            this.divisor = divisor;
        }

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

        private double median(Context ctx, int steps, Runnable op) {
            int iters = Math.max(4, steps / divisor);
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

    /** @param args {@code [--reps R] [--procs 2,4] [--quick]}, or {@code [R]} */
    public static void main(String[] args) {
        int reps = 9, divisor = 1;
        int[] procs = {2, 4};
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--reps" -> reps = Integer.parseInt(value(args, ++i));
                case "--procs" -> procs = java.util.Arrays.stream(value(args, ++i).split(",")).mapToInt(Integer::parseInt).toArray();
                case "--quick" -> divisor = 10;
                default -> {
                    if (args.length != 1) throw new IllegalArgumentException("MpiBench: unknown argument '" + args[i]
                            + "' in " + java.util.Arrays.toString(args) + "; expected [--reps R] [--procs 2,4] [--quick]");
                    reps = Integer.parseInt(args[i]);
                }
            }
        }
        if (reps < 1) throw new IllegalArgumentException("MpiBench: --reps " + reps + ": need at least 1 repetition");
        var root = Lpf.root("mpi");
        int size = MpiEngineProvider.launcherSize(); // the job's ranks, without a probe
        Mpi mpi = MpiRuntime.get().mpi;
        System.out.println("lpf bench: mpi engine over " + mpi.abiName() + " (" + MpiRuntime.get().libraryVersion.strip()
                + "), " + size + " ranks, " + Runtime.getRuntime().availableProcessors() + " cores here, Java "
                + Runtime.version() + "; medians of " + reps + " batches; raw MPI through the same binding on the same"
                + " communicator");
        for (int p : procs) {
            if (p < 2 || p > size) {
                System.out.printf("p=%d  skipped: the job has %d ranks and the rows need 2 <= p <= %d%n", p, size, size);
                continue;
            }
            root.exec(p, new Cells(reps, divisor));
            double[] r = Cells.last;
            System.out.printf("p=%d  empty sync %.2f us (MPI_Barrier %.2f us, ratio %.2fx)%n", p, r[0] * 1e6, r[4] * 1e6, r[0] / r[4]);
            System.out.printf("p=%d  8-byte put + sync %.2f us%n", p, r[1] * 1e6);
            System.out.printf("p=%d  1 MiB put + sync %.1f us = %.2f GB/s per process (MPI_Put 1 MiB + Win_fence %.1f us = %.2f GB/s, ratio %.2fx)%n",
                    p, r[2] * 1e6, MIB / r[2] / 1e9, r[5] * 1e6, MIB / r[5] / 1e9, r[5] / r[2]);
            System.out.printf("p=%d  64 KiB total exchange + sync %.1f us%n", p, r[3] * 1e6);
        }
        System.out.println("ratios: empty sync / MPI_Barrier time (target <= 2); 1 MiB put bandwidth / MPI_Put + fence"
                + " bandwidth (target >= 0.9)");
        System.out.flush();
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) throw new IllegalArgumentException("MpiBench: " + args[i - 1] + " needs a value");
        return args[i];
    }
}
