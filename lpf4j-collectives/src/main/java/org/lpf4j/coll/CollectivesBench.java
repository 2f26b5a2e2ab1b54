package org.lpf4j.coll;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Side-by-side timings of the collectives against the hand-written put patterns they replace,
 * in one run so that only ratios matter: allreduce of one double, and broadcast of a vector.
 * For {@code lpf bench}: call {@link #allreduceRow} and {@link #broadcastRow} with the root
 * context and print the rows. Each row runs one SPMD section of {@code p} processes, alternates
 * the three patterns over several rounds and keeps each pattern's best round (seconds per
 * superstep, timed at pid 0 between syncs).
 */
public final class CollectivesBench {
    private CollectivesBench() {}

    private static final int ROUNDS = 5;

    /**
     * One row of the comparison.
     *
     * @param name       what the collective does
     * @param p          processes
     * @param bytes      bytes per process of the collective
     * @param collective seconds per superstep of the collective + sync
     * @param handMade   seconds per superstep of the hand-written put pattern it replaces + sync
     * @param reference  seconds per superstep of the reference pattern named by {@code refName}
     * @param refName    the reference: an empty sync, or a single put of {@code bytes}
     */
    public record Row(String name, int p, long bytes, double collective, double handMade, double reference,
                      String refName) {
        /** @return collective time over reference time */
        public double ratioToReference() { return collective / reference; }

        /** @return collective time over hand-written time */
        public double ratioToHandMade() { return collective / handMade; }

        @Override
        public String toString() {
            return String.format("%-26s p=%d %9d B  coll %9.2f us  hand %9.2f us  %s %9.2f us  coll/ref %.2f  coll/hand %.2f",
                    name, p, bytes, collective * 1e6, handMade * 1e6, refName, reference * 1e6, ratioToReference(),
                    ratioToHandMade());
        }
    }

    /**
     * Allreduce of one double ({@link Ops#DOUBLE_SUM}) beside the hand-written pattern (put the
     * double to every other process, sync, sum locally) and an empty sync.
     *
     * @param root a root context
     * @param p    processes, ≥ 1
     * @param reps supersteps per round, ≥ 1
     * @return the row
     */
    public static Row allreduceRow(Context root, int p, int reps) {
        double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
        root.exec(p, ctx -> {
            int n = ctx.nprocs(), s = ctx.pid();
            ctx.resizeMemoryRegister(3);
            ctx.resizeMessageQueue(2L * n + 2);
            ctx.sync();
            Collectives coll = Collectives.init(ctx, 1, 8, 0);
            try (Arena arena = Arena.ofShared()) {
                MemorySegment x = arena.allocate(8), all = arena.allocate(8L * n);
                Memslot xs = ctx.registerGlobal(x), alls = ctx.registerGlobal(all);
                ctx.sync();
                for (int round = 0; round < ROUNDS; round++) {
                    record(best, 0, s, time(ctx, reps, () -> coll.allreduce(x, xs, 8, Ops.DOUBLE_SUM)));
                    record(best, 1, s, time(ctx, reps, () -> {
                        for (int k = 0; k < n; k++) if (k != s) ctx.put(xs, 0, k, alls, 8L * s, 8);
                    }, () -> {
                        double sum = x.get(ValueLayout.JAVA_DOUBLE, 0);
                        for (int k = 0; k < n; k++) if (k != s) sum += all.getAtIndex(ValueLayout.JAVA_DOUBLE, k);
                        x.set(ValueLayout.JAVA_DOUBLE, 0, sum);
                    }));
                    record(best, 2, s, time(ctx, reps, () -> { }));
                }
                ctx.deregister(alls);
                ctx.deregister(xs);
                coll.close();
            }
        });
        return new Row("allreduce(double, SUM)", p, 8, best[0], best[1], best[2], "empty sync");
    }

    /**
     * Broadcast of {@code bytes} from pid 0 (algorithm chosen by cost) beside the hand-written
     * pattern (pid 0 puts the vector to every other process) and a single put of the vector
     * from pid 0 to pid 1 (pid 0 to itself when p = 1).
     *
     * @param root  a root context
     * @param p     processes, ≥ 1
     * @param bytes the vector size, ≥ 0
     * @param reps  supersteps per round, ≥ 1
     * @return the row
     */
    public static Row broadcastRow(Context root, int p, long bytes, int reps) {
        return broadcastRow(root, p, bytes, reps, Algorithm.AUTO);
    }

    /**
     * {@link #broadcastRow(Context, int, long, int)} with a forced broadcast variant.
     *
     * @param root      a root context
     * @param p         processes, ≥ 1
     * @param bytes     the vector size, ≥ 0
     * @param reps      supersteps per round, ≥ 1
     * @param algorithm the variant, or {@link Algorithm#AUTO}
     * @return the row
     */
    public static Row broadcastRow(Context root, int p, long bytes, int reps, Algorithm algorithm) {
        double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
        root.exec(p, ctx -> {
            int n = ctx.nprocs(), s = ctx.pid();
            ctx.resizeMemoryRegister(3);
            ctx.resizeMessageQueue(n + 2L);
            ctx.sync();
            Collectives coll = Collectives.init(ctx, 1, 0, bytes).algorithm(algorithm);
            try (Arena arena = Arena.ofShared()) {
                MemorySegment src = arena.allocate(bytes), dst = arena.allocate(bytes);
                Memslot srcs = ctx.registerGlobal(src), dsts = ctx.registerGlobal(dst);
                ctx.sync();
                for (int round = 0; round < ROUNDS; round++) {
                    record(best, 0, s, time(ctx, reps, () -> coll.broadcast(srcs, dsts, bytes, 0)));
                    record(best, 1, s, time(ctx, reps, () -> {
                        if (s == 0) for (int k = 1; k < n; k++) ctx.put(srcs, 0, k, dsts, 0, bytes);
                    }));
                    record(best, 2, s, time(ctx, reps, () -> {
                        if (s == 0) ctx.put(srcs, 0, Math.min(1, n - 1), dsts, 0, bytes);
                    }));
                }
                ctx.deregister(dsts);
                ctx.deregister(srcs);
                coll.close();
            }
        });
        return new Row("broadcast " + algorithm, p, bytes, best[0], best[1], best[2], "1 put");
    }

    private static void record(double[] best, int i, int pid, double seconds) {
        if (pid == 0) best[i] = Math.min(best[i], seconds);
    }

    private static double time(Context ctx, int reps, Runnable beforeSync) {
        return time(ctx, reps, beforeSync, () -> { });
    }

    /** Seconds per superstep of {@code beforeSync; sync; afterSync}, after a short warm-up. */
    private static double time(Context ctx, int reps, Runnable beforeSync, Runnable afterSync) {
        for (int i = 0; i < Math.max(1, reps / 10); i++) {
            beforeSync.run();
            ctx.sync();
            afterSync.run();
        }
        ctx.sync();
        long t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            beforeSync.run();
            ctx.sync();
            afterSync.run();
        }
        return (System.nanoTime() - t0) / 1e9 / reps;
    }

    /**
     * Prints the rows for p = 2, 4, 8: allreduce of one double and broadcast of 1 MiB.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        Context root = Lpf.root();
        List<Row> rows = new ArrayList<>();
        for (int p : new int[]{2, 4, 8}) {
            rows.add(allreduceRow(root, p, 4000));
            for (Algorithm a : Algorithm.values()) rows.add(broadcastRow(root, p, 1 << 20, 200, a));
        }
        rows.forEach(System.out::println);
    }
}
