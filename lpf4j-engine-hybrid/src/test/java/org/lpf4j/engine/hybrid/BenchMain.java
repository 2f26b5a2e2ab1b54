package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Collectives;
import org.lpf4j.coll.Ops;
import org.lpf4j.testkit.Jit;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The hybrid benchmark's workloads on any engine ({@code args[0]}) at p = {@code args[1]}: empty
 * sync, 8-byte put to the next pid + sync, total exchange of 64 KiB (a 16 KiB block from every
 * pid to every pid at p = 4, {@code args[2]} bytes per block) + sync, allreduce of one double
 * by hand (a put to every pid + local sum) and, unless {@code args[3]} is false, through
 * Collectives. Each is warmed up for at least {@value #WARM_MILLIS} ms and until a batch ran
 * with the JIT compiling nothing in any process (at most {@value #MAX_WARM_MILLIS} ms: on 2 cores
 * the compiler threads wait for a core, and a workload timed after 100 warm-up steps, as this
 * benchmark once did, measured interpreted code: 16 us for an MPI empty sync that takes 1 us),
 * then timed in 5 repetitions of about {@value #REP_MILLIS} ms by pid 0; prints
 * {@code BENCH <workload> median_us=<m> reps=<all>}.
 */
public final class BenchMain {
    private BenchMain() {}

    static final long WARM_MILLIS = 500, MAX_WARM_MILLIS = 5_000, REP_MILLIS = 20;

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
            ctx.resizeMemoryRegister(10);
            ctx.resizeMessageQueue(4L * p + 4);
            ctx.sync();
            Arena arena = Arena.ofShared();
            MemorySegment src = arena.allocate(p * block, 64), dst = arena.allocate(p * block, 64);
            Memslot srcs = ctx.registerGlobal(src), dsts = ctx.registerGlobal(dst);
            MemorySegment x = arena.allocate(8, 8);
            Memslot xs = ctx.registerGlobal(x);
            Control c = new Control(ctx, arena);
            ctx.sync();
            Collectives coll = Collectives.init(ctx, 1, Double.BYTES, 0);
            time(ctx, c, "empty-sync", ctx::sync);
            time(ctx, c, "put-8B", () -> {
                ctx.put(srcs, 0, (s + 1) % p, dsts, 0, 8);
                ctx.sync();
            });
            time(ctx, c, "total-exchange-" + (p * block / 1024) + "KiB", () -> {
                for (int d = 0; d < p; d++) ctx.put(srcs, d * block, d, dsts, s * block, block);
                ctx.sync();
            });
            MemorySegment all = arena.allocate(8L * p, 8);
            Memslot alls = ctx.registerGlobal(all);
            ctx.sync();
            time(ctx, c, "allreduce-double-by-hand", () -> {
                x.set(ValueLayout.JAVA_DOUBLE, 0, 1.0);
                for (int d = 0; d < p; d++) ctx.put(xs, 0, d, alls, 8L * s, 8);
                ctx.sync();
                double sum = 0;
                for (int q = 0; q < p; q++) sum += all.getAtIndex(ValueLayout.JAVA_DOUBLE, q);
                if (sum != p) throw new AssertionError("allreduce by hand gave " + sum);
            });
            if (collectives) {
                time(ctx, c, "allreduce-double-collectives", () -> {
                    x.set(ValueLayout.JAVA_DOUBLE, 0, 1.0);
                    coll.allreduce(x, xs, Double.BYTES, Ops.DOUBLE_SUM);
                    ctx.sync();
                    if (x.get(ValueLayout.JAVA_DOUBLE, 0) != p) throw new AssertionError("allreduce gave " + x.get(ValueLayout.JAVA_DOUBLE, 0));
                });
            }
            ctx.deregister(alls);
            coll.close();
            ctx.deregister(xs);
            ctx.deregister(c.controlSlot);
            ctx.deregister(c.mineSlot);
            ctx.deregister(dsts);
            ctx.deregister(srcs);
            ctx.sync();
        }

        /** One process's words for {@link #agree} (the SPMD object is shared by the threads of a JVM). */
        private static final class Control {
            final MemorySegment control, mine;
            final Memslot controlSlot, mineSlot;

            Control(Context ctx, Arena arena) {
                control = arena.allocate(8L * (ctx.nprocs() + 1), 8);
                mine = arena.allocate(16, 8);
                controlSlot = ctx.registerGlobal(control);
                mineSlot = ctx.registerGlobal(mine);
            }
        }

        private static void time(Context ctx, Control c, String name, Runnable step) {
            String only = System.getProperty("lpf.test.bench.only", "");
            if (!only.isEmpty() && !name.startsWith(only)) return;
            long start = System.nanoTime(), steps;
            for (int batch = 1; ; batch = Math.min(2 * batch, 1 << 16)) {
                long compiled = Jit.compilationMillis();
                long t0 = System.nanoTime();
                for (int i = 0; i < batch; i++) step.run();
                long t1 = System.nanoTime(), elapsedMillis = (t1 - start) / 1_000_000;
                boolean warm = elapsedMillis >= WARM_MILLIS && Jit.compilationMillis() == compiled
                        || elapsedMillis >= MAX_WARM_MILLIS;
                steps = agree(ctx, c, !warm, Math.max(1, REP_MILLIS * 1_000_000L * batch / Math.max(1, t1 - t0)));
                if (steps > 0) break;
            }
            double[] us = new double[5];
            for (int r = 0; r < us.length; r++) {
                ctx.sync();
                long t0 = System.nanoTime();
                for (long i = 0; i < steps; i++) step.run();
                us[r] = (System.nanoTime() - t0) / 1e3 / steps;
            }
            if (ctx.pid() == 0) {
                double[] sorted = us.clone();
                Arrays.sort(sorted);
                System.out.printf("BENCH %s median_us=%.2f reps=%s%n", name, sorted[sorted.length / 2], Arrays.toString(us));
                System.out.flush();
            }
        }

        /**
         * One superstep: every process tells every process whether it is still warming up, and
         * pid 0 tells everyone its steps per repetition.
         *
         * @return pid 0's steps if no process is still warming up, else 0
         */
        private static long agree(Context ctx, Control c, boolean warming, long steps) {
            int p = ctx.nprocs(), s = ctx.pid();
            c.mine.set(ValueLayout.JAVA_LONG, 0, warming ? 1 : 0);
            c.mine.set(ValueLayout.JAVA_LONG, 8, steps);
            for (int d = 0; d < p; d++) {
                ctx.put(c.mineSlot, 0, d, c.controlSlot, 8L * s, 8);
                if (s == 0) ctx.put(c.mineSlot, 8, d, c.controlSlot, 8L * p, 8);
            }
            ctx.sync();
            for (int q = 0; q < p; q++) if (c.control.get(ValueLayout.JAVA_LONG, 8L * q) != 0) return 0;
            return c.control.get(ValueLayout.JAVA_LONG, 8L * p);
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
