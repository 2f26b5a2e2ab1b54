package org.lpf4j.coll;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Ready reducers and combiners for the primitive numbers: sum, min and max of {@code int},
 * {@code long}, {@code float} and {@code double}, in native byte order and at any alignment.
 * Each constant is both a {@link Reducer} (for {@code reduce}/{@code allreduce} with
 * {@code size = elementSize()}) and a {@link Combiner} (for {@code combine}/{@code allcombine}
 * with {@code size = elementSize()}); the collectives refuse another size with these.
 *
 * <p>Integer sums wrap around; floating-point min and max follow {@link Math#min(double, double)}
 * (NaN wins, −0.0 &lt; +0.0); floating-point sums are associative only up to rounding, so the
 * result may differ in the last bits between runs and algorithms. Cost: one pass over the
 * elements, nothing allocated.
 */
public enum Ops implements Reducer, Combiner {
    /** {@code int} sum (wrapping). */ INT_SUM(Type.INT, Kind.SUM),
    /** {@code int} minimum. */ INT_MIN(Type.INT, Kind.MIN),
    /** {@code int} maximum. */ INT_MAX(Type.INT, Kind.MAX),
    /** {@code long} sum (wrapping). */ LONG_SUM(Type.LONG, Kind.SUM),
    /** {@code long} minimum. */ LONG_MIN(Type.LONG, Kind.MIN),
    /** {@code long} maximum. */ LONG_MAX(Type.LONG, Kind.MAX),
    /** {@code float} sum. */ FLOAT_SUM(Type.FLOAT, Kind.SUM),
    /** {@code float} minimum. */ FLOAT_MIN(Type.FLOAT, Kind.MIN),
    /** {@code float} maximum. */ FLOAT_MAX(Type.FLOAT, Kind.MAX),
    /** {@code double} sum. */ DOUBLE_SUM(Type.DOUBLE, Kind.SUM),
    /** {@code double} minimum. */ DOUBLE_MIN(Type.DOUBLE, Kind.MIN),
    /** {@code double} maximum. */ DOUBLE_MAX(Type.DOUBLE, Kind.MAX);

    private enum Type { INT, LONG, FLOAT, DOUBLE }

    private enum Kind { SUM, MIN, MAX }

    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private final Type type;
    private final Kind kind;

    Ops(Type type, Kind kind) {
        this.type = type;
        this.kind = kind;
    }

    /** @return the size in bytes of one element: 4 or 8 */
    public long elementSize() {
        return type == Type.INT || type == Type.FLOAT ? 4 : 8;
    }

    @Override
    public void combine(long n, MemorySegment from, long fromOffset, MemorySegment into, long intoOffset) {
        long w = elementSize();
        for (long k = 0; k < n; k++) {
            fold(from, fromOffset + k * w, into, intoOffset + k * w);
        }
    }

    @Override
    public void reduce(long n, MemorySegment array, long arrayOffset, MemorySegment value, long valueOffset) {
        long w = elementSize();
        for (long k = 0; k < n; k++) {
            fold(array, arrayOffset + k * w, value, valueOffset);
        }
    }

    /** {@code acc[a] = acc[a] ⊕ x[o]}. */
    private void fold(MemorySegment x, long o, MemorySegment acc, long a) {
        switch (type) {
            case INT -> acc.set(I, a, ints(acc.get(I, a), x.get(I, o)));
            case LONG -> acc.set(L, a, longs(acc.get(L, a), x.get(L, o)));
            case FLOAT -> acc.set(F, a, floats(acc.get(F, a), x.get(F, o)));
            case DOUBLE -> acc.set(D, a, doubles(acc.get(D, a), x.get(D, o)));
        }
    }

    private int ints(int a, int b) {
        return switch (kind) { case SUM -> a + b; case MIN -> Math.min(a, b); case MAX -> Math.max(a, b); };
    }

    private long longs(long a, long b) {
        return switch (kind) { case SUM -> a + b; case MIN -> Math.min(a, b); case MAX -> Math.max(a, b); };
    }

    private float floats(float a, float b) {
        return switch (kind) { case SUM -> a + b; case MIN -> Math.min(a, b); case MAX -> Math.max(a, b); };
    }

    private double doubles(double a, double b) {
        return switch (kind) { case SUM -> a + b; case MIN -> Math.min(a, b); case MAX -> Math.max(a, b); };
    }
}
