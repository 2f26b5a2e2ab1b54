package org.lpf4j.coll;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.spi.kit.CountingContext;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.segment;

/**
 * The syncs a call makes inside itself, counted through a forwarding context around one call
 * (and as the change of {@link Context#superstep()} of the engine's context): the
 * two-superstep variants ({@link Algorithm#TWO_PHASE}, {@link Algorithm#TREE}) of broadcast,
 * reduce, allreduce, combine and allcombine sync exactly once, at every p including 1;
 * {@link Algorithm#DIRECT} never; gather, scatter, allgather, alltoall and allgatherv never,
 * whatever variant is forced (they have one algorithm); alltoallv once for p ≥ 2 and not for
 * p = 1 (its Javadoc). Every call's result is checked after the caller's sync.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InternalSyncTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final String[] VARIANT_OPS = {"broadcast", "reduce", "allreduce", "combine", "allcombine"};
    private static final String[] ONE_ALGORITHM_OPS = {"gather", "scatter", "allgather", "alltoall", "allgatherv",
            "alltoallv"};

    static Stream<Arguments> variantsAndP() {
        return Stream.of(Harness.VARIANTS).flatMap(a -> IntStream.of(Harness.PROCS).mapToObj(p -> Arguments.of(a, p)));
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("variantsAndP")
    void twoSuperstepVariantsSyncOnceInsideTheCallAndDirectNever(Algorithm a, int p) {
        run(p, raw -> {
            CountingContext ctx = new CountingContext(raw);
            int s = ctx.pid();
            reserve(ctx, 3, 2L * p);
            Collectives coll = Collectives.init(ctx, 1, 8, 8L * p).algorithm(a);
            MemorySegment x = segment(8L * p), y = segment(8L * p);
            Memslot xs = ctx.registerGlobal(x), ys = ctx.registerGlobal(y);
            ctx.sync();
            for (int root = 0; root < p; root += Math.max(1, p - 1)) { // the first and the last pid
                for (String op : VARIANT_OPS) {
                    int expected = a == Algorithm.DIRECT ? 0 : 1;
                    oneCall(raw, ctx, coll, op, root, x, xs, y, ys, expected, a + " " + op);
                }
                for (String op : ONE_ALGORITHM_OPS) {
                    int expected = op.equals("alltoallv") && p > 1 ? 1 : 0;
                    oneCall(raw, ctx, coll, op, root, x, xs, y, ys, expected, op + " (" + a + " forced)");
                }
            }
            coll.close();
            ctx.deregister(xs);
            ctx.deregister(ys);
        });
    }

    /**
     * Sets the inputs, makes one call of {@code op} counting the syncs inside it, syncs and checks
     * the result.
     */
    private static void oneCall(Context raw, CountingContext ctx, Collectives coll, String op, int root,
                                MemorySegment x, Memslot xs, MemorySegment y, Memslot ys, int expected, String what) {
        int s = ctx.pid(), p = ctx.nprocs();
        String at = what + " p=" + p + " root=" + root + " at pid " + s;
        for (int k = 0; k < p; k++) {
            x.set(LONG, 8L * k, 1000L * s + k + 1);
            y.set(LONG, 8L * k, -1);
        }
        long[] counts = new long[p], offsets = new long[p];
        for (int k = 0; k < p; k++) {
            counts[k] = 8;
            offsets[k] = 8L * k;
        }
        int syncs = ctx.syncs();
        long step = raw.superstep();
        switch (op) {
            case "broadcast" -> coll.broadcast(xs, ys, 8, root);
            case "reduce" -> coll.reduce(x, xs, 8, Ops.LONG_SUM, root);
            case "allreduce" -> coll.allreduce(x, xs, 8, Ops.LONG_SUM);
            case "combine" -> coll.combine(x, xs, p, 8, Ops.LONG_SUM, root);
            case "allcombine" -> coll.allcombine(x, xs, p, 8, Ops.LONG_SUM);
            case "gather" -> coll.gather(xs, ys, 8, root);
            case "scatter" -> coll.scatter(xs, ys, 8, root);
            case "allgather" -> coll.allgather(xs, ys, 8, true);
            case "alltoall" -> coll.alltoall(xs, ys, 8);
            case "allgatherv" -> coll.allgatherv(xs, ys, counts, offsets, true);
            default -> coll.alltoallv(xs, counts, offsets, ys, counts, offsets);
        }
        assertEquals(expected, ctx.syncs() - syncs, "syncs inside " + at);
        assertEquals(expected, raw.superstep() - step, "supersteps inside " + at);
        ctx.sync();
        for (int k = 0; k < p; k++) {
            long sum = 0; // of element k over all pids
            for (int q = 0; q < p; q++) sum += 1000L * q + k + 1;
            long mine = 1000L * s + k + 1, got = op.contains("reduce") || op.contains("combine") ? x.get(LONG, 8L * k)
                    : y.get(LONG, 8L * k);
            String block = "element " + k + " after " + at;
            switch (op) {
                case "broadcast" -> assertEquals(s == root || k > 0 ? -1 : 1000L * root + 1, got, block);
                case "reduce" -> assertEquals(s == root && k == 0 ? sum : mine, got, block);
                case "allreduce" -> assertEquals(k == 0 ? sum : mine, got, block);
                case "combine" -> { if (s == root) assertEquals(sum, got, block); }
                case "allcombine" -> assertEquals(sum, got, block);
                case "gather" -> assertEquals(s == root && k != root ? 1000L * k + 1 : -1, got, block);
                case "scatter" -> assertEquals(s != root && k == 0 ? 1000L * root + s + 1 : -1, got, block);
                case "allgather", "allgatherv" -> assertEquals(k != s ? 1000L * k + 1 : -1, got, block);
                case "alltoall" -> assertEquals(k != s ? 1000L * k + s + 1 : -1, got, block);
                default -> assertEquals(1000L * k + s + 1, got, block); // alltoallv copies the diagonal too
            }
        }
    }
}
