package org.lpf4j.tools.bench;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.coll.Collectives;
import org.lpf4j.coll.Ops;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * The collectives rows of {@code lpf bench} (issue 3): allreduce of one double and broadcast of
 * 1 MiB through {@link Collectives} (algorithm chosen by the library's cost model, or forced with
 * {@code --param lpf.coll.costmodel.<op>=...}), each beside the hand-written put pattern it
 * replaces, at p ≥ 2. Ratio rows compare the allreduce with an empty sync and the broadcast's
 * bandwidth with the 1 MiB put's, both from the same run.
 */
public final class CollectiveWorkloads {
    private CollectiveWorkloads() {}

    /** The allreduce row. */
    public static final String ALLREDUCE = "allreduce 1 double (Collectives, DOUBLE_SUM) + sync";
    /** The hand-written allreduce row. */
    public static final String ALLREDUCE_BY_HAND = "allreduce 1 double by hand: put to all others + local sum";
    /** The broadcast row; its bandwidth is bytes received per non-root process per second. */
    public static final String BROADCAST = "broadcast 1 MiB from pid 0 (Collectives) + sync, GB/s = recv per non-root";
    /** The hand-written broadcast row. */
    public static final String BROADCAST_BY_HAND = "broadcast 1 MiB by hand: pid 0 puts to all, GB/s = recv per non-root";

    private static final long MIB = 1 << 20;

    /** @return allreduce, its hand-written pattern, broadcast, its hand-written pattern */
    public static List<Workload> rows() {
        return List.of(allreduce(), allreduceByHand(), broadcast(), broadcastByHand());
    }

    /**
     * @return allreduce / empty sync (target ≤ 2 at p = 2), allreduce / hand-written,
     *         broadcast / 1 MiB put bandwidth (target ≥ 0.5 at p = 4), broadcast / hand-written
     */
    public static List<SideBySide.Ratio> ratios() {
        return List.of(new SideBySide.Ratio("allreduce / empty sync (time)", ALLREDUCE, "empty sync"),
                new SideBySide.Ratio("allreduce / by hand (time)", ALLREDUCE, ALLREDUCE_BY_HAND),
                new SideBySide.Ratio("broadcast / 1 MiB put (bandwidth)", BROADCAST, Workloads.PUT_1MIB),
                new SideBySide.Ratio("broadcast / by hand (bandwidth)", BROADCAST, BROADCAST_BY_HAND));
    }

    /** @return each process sets its double to 1 and allreduces it (sum) with the library, then syncs */
    static Workload allreduce() { return new Allreduce(); }

    private static final class Allreduce extends Collective {
        private static final long serialVersionUID = 1L;

        Allreduce() { super(ALLREDUCE, Workload.Metric.MICROSECONDS, 2, 0); }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            Collectives coll = Collectives.init(ctx, 1, Double.BYTES, 0);
            MemorySegment x = arena.allocate(Double.BYTES, Double.BYTES);
            Memslot xs = ctx.registerGlobal(x);
            return new Step() {
                @Override
                public void run() {
                    x.set(ValueLayout.JAVA_DOUBLE, 0, 1.0);
                    coll.allreduce(x, xs, Double.BYTES, Ops.DOUBLE_SUM);
                    ctx.sync();
                }

                @Override
                public void release() {
                    ctx.deregister(xs);
                    coll.close();
                }
            };
        }
    }

    /** @return each process puts its double into slot {@code pid} of every other process, syncs, sums */
    static Workload allreduceByHand() { return new AllreduceByHand(); }

    private static final class AllreduceByHand extends Collective {
        private static final long serialVersionUID = 1L;

        AllreduceByHand() { super(ALLREDUCE_BY_HAND, Workload.Metric.MICROSECONDS, 2, 0); }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            int p = ctx.nprocs(), s = ctx.pid();
            MemorySegment x = arena.allocate(Double.BYTES, Double.BYTES);
            MemorySegment all = arena.allocate((long) Double.BYTES * p, Double.BYTES);
            Memslot xs = ctx.registerGlobal(x), alls = ctx.registerGlobal(all);
            return Workloads.step(ctx, () -> {
                x.set(ValueLayout.JAVA_DOUBLE, 0, 1.0);
                for (int k = 0; k < p; k++) if (k != s) ctx.put(xs, 0, k, alls, (long) Double.BYTES * s, Double.BYTES);
                ctx.sync();
                double sum = x.get(ValueLayout.JAVA_DOUBLE, 0);
                for (int k = 0; k < p; k++) if (k != s) sum += all.getAtIndex(ValueLayout.JAVA_DOUBLE, k);
                x.set(ValueLayout.JAVA_DOUBLE, 0, sum);
            }, xs, alls);
        }
    }

    /** @return pid 0 broadcasts 1 MiB with the library, then every process syncs */
    static Workload broadcast() { return new Broadcast(); }

    private static final class Broadcast extends Collective {
        private static final long serialVersionUID = 1L;

        Broadcast() { super(BROADCAST, Workload.Metric.GIGABYTES_PER_SECOND, 3, MIB); }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            Collectives coll = Collectives.init(ctx, 1, 0, MIB);
            Memslot src = ctx.registerGlobal(arena.allocate(MIB, 64));
            Memslot dst = ctx.registerGlobal(arena.allocate(MIB, 64));
            return new Step() {
                @Override
                public void run() {
                    coll.broadcast(src, dst, MIB, 0);
                    ctx.sync();
                }

                @Override
                public void release() {
                    ctx.deregister(dst);
                    ctx.deregister(src);
                    coll.close();
                }
            };
        }
    }

    /** @return pid 0 puts 1 MiB to every other process, then every process syncs */
    static Workload broadcastByHand() { return new BroadcastByHand(); }

    private static final class BroadcastByHand extends Collective {
        private static final long serialVersionUID = 1L;

        BroadcastByHand() { super(BROADCAST_BY_HAND, Workload.Metric.GIGABYTES_PER_SECOND, 2, MIB); }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            int p = ctx.nprocs();
            boolean root = ctx.pid() == 0;
            Memslot src = ctx.registerGlobal(arena.allocate(MIB, 64));
            Memslot dst = ctx.registerGlobal(arena.allocate(MIB, 64));
            return Workloads.step(ctx, () -> {
                if (root) for (int k = 1; k < p; k++) ctx.put(src, 0, k, dst, 0, MIB);
                ctx.sync();
            }, src, dst);
        }
    }

    /**
     * A collectives row: measured at p ≥ 2, with queue room for one collective call of the
     * library as {@code Collectives.queueEntries()} documents it for maxCalls = 1 (2P entries,
     * origin and target counted as the core spec does), which also covers the hand-written
     * patterns.
     */
    private abstract static class Collective extends Workloads.Base {
        private static final long serialVersionUID = 1L;
        private final long amount;

        Collective(String name, Metric metric, long registrations, long amount) {
            super(name, metric, registrations);
            this.amount = amount;
        }

        @Override public boolean runsAt(int p) { return p >= 2; }

        @Override public long messages(int p) { return 2L * p; }

        @Override public long amountPerStep(int p) { return amount; }
    }
}
