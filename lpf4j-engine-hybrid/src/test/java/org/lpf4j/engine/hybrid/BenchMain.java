package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Collectives;
import org.lpf4j.coll.Ops;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The hybrid benchmark's workloads on any engine ({@code args[0]}) at p = {@code args[1]}: empty
 * sync, 8-byte put to the next pid + sync, total exchange of 64 KiB (a 16 KiB block from every
 * pid to every pid at p = 4, {@code args[2]} bytes per block) + sync, allreduce of one double
 * by hand (a put to every pid + local sum) and, unless {@code args[3]} is false, through
 * Collectives (its reductions use combining puts, which the MPI engine lacks). Each is warmed up, then timed in 5 repetitions by pid 0; prints
 * {@code BENCH <workload> median_us=<m> reps=<all>}.
 */
public final class BenchMain {
    private BenchMain() {}

    static final class Workloads implements Spmd {
        private static final long serialVersionUID = 1L;
        private final long block;
        private final boolean collectives;

        Workloads(long block, boolean collectives) {
            this.block = block;
            this.collectives = collectives;
        }

        @Override
        public void run(Context ctx) {
            int p = ctx.nprocs(), s = ctx.pid();
            ctx.resizeMemoryRegister(8);
            ctx.resizeMessageQueue(4L * p + 4);
            ctx.sync();
            Arena arena = Arena.ofShared();
            MemorySegment src = arena.allocate(p * block, 64), dst = arena.allocate(p * block, 64);
            Memslot srcs = ctx.registerGlobal(src), dsts = ctx.registerGlobal(dst);
            MemorySegment x = arena.allocate(8, 8);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            Collectives coll = Collectives.init(ctx, 1, Double.BYTES, 0);
            time(ctx, "empty-sync", 400, ctx::sync);
            time(ctx, "put-8B", 400, () -> {
                ctx.put(srcs, 0, (s + 1) % p, dsts, 0, 8);
                ctx.sync();
            });
            time(ctx, "total-exchange-" + (p * block / 1024) + "KiB", 60, () -> {
                for (int d = 0; d < p; d++) ctx.put(srcs, d * block, d, dsts, s * block, block);
                ctx.sync();
            });
            MemorySegment all = arena.allocate(8L * p, 8);
            Memslot alls = ctx.registerGlobal(all);
            ctx.sync();
            time(ctx, "allreduce-double-by-hand", 200, () -> {
                x.set(ValueLayout.JAVA_DOUBLE, 0, 1.0);
                for (int d = 0; d < p; d++) ctx.put(xs, 0, d, alls, 8L * s, 8);
                ctx.sync();
                double sum = 0;
                for (int q = 0; q < p; q++) sum += all.getAtIndex(ValueLayout.JAVA_DOUBLE, q);
                if (sum != p) throw new AssertionError("allreduce by hand gave " + sum);
            });
            if (collectives) {
                time(ctx, "allreduce-double-collectives", 200, () -> {
                    x.set(ValueLayout.JAVA_DOUBLE, 0, 1.0);
                    coll.allreduce(x, xs, Double.BYTES, Ops.DOUBLE_SUM);
                    ctx.sync();
                    if (x.get(ValueLayout.JAVA_DOUBLE, 0) != p) throw new AssertionError("allreduce gave " + x.get(ValueLayout.JAVA_DOUBLE, 0));
                });
            }
            ctx.deregister(alls);
            coll.close();
            ctx.deregister(xs);
            ctx.deregister(dsts);
            ctx.deregister(srcs);
            ctx.sync();
        }

        private static void time(Context ctx, String name, int iters, Runnable step) {
            String only = System.getProperty("lpf.test.bench.only", "");
            if (!only.isEmpty() && !name.startsWith(only)) return;
            for (int i = 0; i < iters / 4; i++) step.run();
            double[] us = new double[5];
            for (int r = 0; r < us.length; r++) {
                ctx.sync();
                long t0 = System.nanoTime();
                for (int i = 0; i < iters; i++) step.run();
                us[r] = (System.nanoTime() - t0) / 1e3 / iters;
            }
            if (ctx.pid() == 0) {
                double[] sorted = us.clone();
                Arrays.sort(sorted);
                System.out.printf("BENCH %s median_us=%.2f reps=%s%n", name, sorted[sorted.length / 2], Arrays.toString(us));
                System.out.flush();
            }
        }
    }

    public static void main(String[] args) {
        Context root = Lpf.root(args[0]);
        int p = Integer.parseInt(args[1]);
        long block = args.length > 2 ? Long.parseLong(args[2]) : 64 * 1024 / p;
        boolean collectives = args.length <= 3 || Boolean.parseBoolean(args[3]);
        root.exec(p, new Workloads(block, collectives), Args.NONE);
        System.out.println("BENCH DONE");
    }
}
