package org.lpf4j.coll;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.lpf4j.coll.Harness.assertBytes;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.roots;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.seed;
import static org.lpf4j.coll.Harness.segment;

/**
 * Reduce, allreduce, combine and allcombine in every variant against a sequential reference:
 * random data, p = 1..8, every root, element counts 0, 1, odd, and 1 MiB arrays, with ready
 * operators and user operators of odd element sizes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReductionTest {
    private static final long[] NUMS = {0, 1, 7, 1001};
    private static final Lanes[] ARRAY_OPS = {Lanes.LONG_SUM, Lanes.INT_MIN, Lanes.DOUBLE_SUM, Lanes.XOR3,
            Lanes.FLOAT_MAX, Lanes.INT3_SUM};
    private static final Lanes[] ELEMENT_OPS = {Lanes.LONG_SUM, Lanes.INT3_SUM, Lanes.XOR3, Lanes.FLOAT_MAX};

    static Stream<Arguments> variantsAndP() {
        return Stream.of(Harness.VARIANTS).flatMap(a -> IntStream.of(Harness.PROCS).mapToObj(p -> Arguments.of(a, p)));
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("variantsAndP")
    void everyReductionAtEveryRootAndSize(Algorithm a, int p) {
        long maxBytes = NUMS[NUMS.length - 1] * 12;
        run(p, ctx -> {
            reserve(ctx, 2, p + 1);
            Collectives coll = Collectives.init(ctx, 1, 12, maxBytes).algorithm(a);
            MemorySegment arr = segment(maxBytes);
            Memslot slot = ctx.registerGlobal(arr);
            ctx.sync();
            for (int root : roots(p)) {
                for (Lanes op : ELEMENT_OPS) reduce(ctx, coll, arr, slot, op, root, a);
                for (int i = 0; i < NUMS.length; i++) {
                    combine(ctx, coll, arr, slot, ARRAY_OPS[(root + i) % ARRAY_OPS.length], NUMS[i], root, a);
                }
            }
            for (Lanes op : ELEMENT_OPS) combine(ctx, coll, arr, slot, op, 1, -1, a);
            for (int i = 0; i < ARRAY_OPS.length; i++) {
                combine(ctx, coll, arr, slot, ARRAY_OPS[i], NUMS[i % NUMS.length], -1, a);
            }
            coll.close();
        });
    }

    @ParameterizedTest
    @EnumSource(names = {"DIRECT", "TWO_PHASE", "TREE"})
    void reductionsOfOneMebibyte(Algorithm a) {
        long num = (1 << 20) / 8;
        for (int p : new int[]{4, 5}) {
            run(p, ctx -> {
                reserve(ctx, 2, p + 1);
                Collectives coll = Collectives.init(ctx, 1, 8, num * 8).algorithm(a);
                MemorySegment arr = segment(num * 8);
                Memslot slot = ctx.registerGlobal(arr);
                ctx.sync();
                combine(ctx, coll, arr, slot, Lanes.DOUBLE_SUM, num, -1, a);
                combine(ctx, coll, arr, slot, Lanes.LONG_SUM, num, 1, a);
                coll.close();
            });
        }
    }

    /** reduce (one element) to {@code root}; non-roots' elements must be unchanged. */
    static void reduce(Context ctx, Collectives coll, MemorySegment arr, Memslot slot, Lanes op, int root, Algorithm a) {
        int s = ctx.pid();
        long key = seed(ctx.nprocs(), root, op.ordinal(), 1);
        MemorySegment in = op.input(key, s, 1);
        MemorySegment.copy(in, 0, arr, 0, op.size);
        coll.reduce(arr, slot, op.size, op.reducer(), root);
        ctx.sync();
        String what = "reduce " + op + " " + a + " p=" + ctx.nprocs() + " root=" + root + " at pid " + s;
        MemorySegment expected = s == root ? op.expected(key, pids(coll), 1) : in;
        assertBytes(expected, 0, arr, 0, op.size, what);
    }

    /**
     * combine ({@code root ≥ 0}) or allcombine ({@code root < 0}) of {@code num} elements; with
     * {@code num == 1} and a root below 0 this runs allreduce instead, as an element reduction.
     */
    static void combine(Context ctx, Collectives coll, MemorySegment arr, Memslot slot, Lanes op, long num, int root,
                        Algorithm a) {
        int s = ctx.pid();
        long key = seed(ctx.nprocs(), root, op.ordinal(), num);
        MemorySegment in = op.input(key, s, num);
        MemorySegment.copy(in, 0, arr, 0, num * op.size);
        boolean allreduce = root < 0 && num == 1;
        if (allreduce) coll.allreduce(arr, slot, op.size, op.reducer());
        else if (root < 0) coll.allcombine(arr, slot, num, op.size, op.combiner());
        else coll.combine(arr, slot, num, op.size, op.combiner(), root);
        ctx.sync();
        if (root >= 0 && s != root) return; // a non-root's array is undefined after combine
        String what = (allreduce ? "allreduce " : root < 0 ? "allcombine " : "combine ") + op + " " + a + " p="
                + ctx.nprocs() + " root=" + root + " num=" + num + " at pid " + s;
        assertBytes(op.expected(key, pids(coll), num), 0, arr, 0, num * op.size, what);
    }

    /** @return the pids of the members of {@code coll} */
    static int[] pids(Collectives coll) {
        int[] pids = new int[coll.members()];
        for (int k = 0; k < pids.length; k++) pids[k] = coll.members.pid(k);
        return pids;
    }
}
