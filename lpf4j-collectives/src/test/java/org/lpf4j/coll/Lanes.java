package org.lpf4j.coll;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * Test operators and their sequential reference: each is element-wise on lanes (long, int,
 * double or byte), so the expected result is a lane-by-lane fold over all processes' inputs,
 * computed with plain Java arithmetic.
 */
enum Lanes {
    /** {@link Ops#LONG_SUM}, 8-byte elements. */
    LONG_SUM(8),
    /** {@link Ops#INT_MIN}, 4-byte elements. */
    INT_MIN(4),
    /** {@link Ops#DOUBLE_SUM} on small integers (exact in any order), 8-byte elements. */
    DOUBLE_SUM(8),
    /** {@link Ops#FLOAT_MAX}, 4-byte elements. */
    FLOAT_MAX(4),
    /** A user operator: byte-wise xor of 3-byte elements. */
    XOR3(3),
    /** A user operator: 12-byte elements of three ints, summed lane-wise. */
    INT3_SUM(12);

    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    final long size;

    Lanes(long size) { this.size = size; }

    /** @return the combiner under test */
    Combiner combiner() {
        return switch (this) {
            case LONG_SUM -> Ops.LONG_SUM;
            case INT_MIN -> Ops.INT_MIN;
            case DOUBLE_SUM -> Ops.DOUBLE_SUM;
            case FLOAT_MAX -> Ops.FLOAT_MAX;
            case XOR3 -> (n, from, fo, into, io) -> {
                for (long b = 0; b < 3 * n; b++) {
                    into.set(ValueLayout.JAVA_BYTE, io + b,
                            (byte) (into.get(ValueLayout.JAVA_BYTE, io + b) ^ from.get(ValueLayout.JAVA_BYTE, fo + b)));
                }
            };
            case INT3_SUM -> (n, from, fo, into, io) -> {
                for (long b = 0; b < 12 * n; b += 4) into.set(I, io + b, into.get(I, io + b) + from.get(I, fo + b));
            };
        };
    }

    /** @return the reducer under test: folds n elements into the value */
    Reducer reducer() {
        Combiner c = combiner();
        return switch (this) {
            case LONG_SUM -> Ops.LONG_SUM;
            case INT_MIN -> Ops.INT_MIN;
            case DOUBLE_SUM -> Ops.DOUBLE_SUM;
            case FLOAT_MAX -> Ops.FLOAT_MAX;
            default -> (n, array, ao, value, vo) -> {
                for (long k = 0; k < n; k++) c.combine(1, array, ao + k * size, value, vo);
            };
        };
    }

    /** @return the input of process {@code pid}: {@code num} random elements */
    MemorySegment input(long seed, int pid, long num) {
        long bytes = num * size;
        SplittableRandom r = new SplittableRandom(Harness.seed(seed, pid));
        MemorySegment s = Harness.segment(bytes);
        switch (this) {
            case DOUBLE_SUM -> { for (long o = 0; o < bytes; o += 8) s.set(D, o, r.nextInt(-1000, 1000)); }
            case FLOAT_MAX -> { for (long o = 0; o < bytes; o += 4) s.set(F, o, (float) r.nextGaussian()); }
            default -> Harness.fill(s, 0, bytes, r.nextLong());
        }
        return s;
    }

    /** @return the sequential reference: the lane-wise fold of the inputs of pids in {@code pids} */
    MemorySegment expected(long seed, int[] pids, long num) {
        MemorySegment acc = input(seed, pids[0], num).asSlice(0);
        for (int k = 1; k < pids.length; k++) {
            MemorySegment x = input(seed, pids[k], num);
            long bytes = num * size;
            switch (this) {
                case LONG_SUM -> { for (long o = 0; o < bytes; o += 8) acc.set(L, o, acc.get(L, o) + x.get(L, o)); }
                case INT_MIN -> { for (long o = 0; o < bytes; o += 4) acc.set(I, o, Math.min(acc.get(I, o), x.get(I, o))); }
                case DOUBLE_SUM -> { for (long o = 0; o < bytes; o += 8) acc.set(D, o, acc.get(D, o) + x.get(D, o)); }
                case FLOAT_MAX -> { for (long o = 0; o < bytes; o += 4) acc.set(F, o, Math.max(acc.get(F, o), x.get(F, o))); }
                case XOR3 -> {
                    for (long o = 0; o < bytes; o++) {
                        acc.set(ValueLayout.JAVA_BYTE, o,
                                (byte) (acc.get(ValueLayout.JAVA_BYTE, o) ^ x.get(ValueLayout.JAVA_BYTE, o)));
                    }
                }
                case INT3_SUM -> { for (long o = 0; o < bytes; o += 4) acc.set(I, o, acc.get(I, o) + x.get(I, o)); }
            }
        }
        return acc;
    }
}
