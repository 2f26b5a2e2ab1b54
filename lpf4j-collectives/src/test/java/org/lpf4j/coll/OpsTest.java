package org.lpf4j.coll;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Every ready operator, as combiner and as reducer, against plain Java arithmetic, unaligned. */
class OpsTest {
    private static final int N = 37;
    private static final long OFF = 3; // unaligned on purpose

    @Test
    void everyOperatorMatchesPlainJava() {
        SplittableRandom r = new SplittableRandom(7);
        for (Ops op : Ops.values()) {
            int w = (int) op.elementSize();
            MemorySegment a = Harness.segment(OFF + N * w), b = Harness.segment(OFF + N * w), value = Harness.segment(OFF + w);
            double[] x = new double[N], y = new double[N];
            for (int k = 0; k < N; k++) {
                x[k] = r.nextInt(-1 << 20, 1 << 20);
                y[k] = r.nextInt(-1 << 20, 1 << 20);
                put(op, a, OFF + (long) k * w, x[k]);
                put(op, b, OFF + (long) k * w, y[k]);
            }
            put(op, value, OFF, y[0]);
            op.combine(N, a, OFF, b, OFF);
            op.reduce(N, a, OFF, value, OFF);
            double folded = y[0];
            for (int k = 0; k < N; k++) {
                assertEquals(apply(op, y[k], x[k]), get(op, b, OFF + (long) k * w), op + " combine element " + k);
                folded = apply(op, folded, x[k]);
            }
            assertEquals(folded, get(op, value, OFF), op + " reduce");
        }
    }

    private static double apply(Ops op, double a, double b) {
        String kind = op.name().substring(op.name().indexOf('_') + 1);
        return switch (kind) { case "SUM" -> a + b; case "MIN" -> Math.min(a, b); default -> Math.max(a, b); };
    }

    private static void put(Ops op, MemorySegment s, long o, double v) {
        switch (op.name().substring(0, op.name().indexOf('_'))) {
            case "INT" -> s.set(ValueLayout.JAVA_INT_UNALIGNED, o, (int) v);
            case "LONG" -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, o, (long) v);
            case "FLOAT" -> s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, o, (float) v);
            default -> s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, o, v);
        }
    }

    private static double get(Ops op, MemorySegment s, long o) {
        return switch (op.name().substring(0, op.name().indexOf('_'))) {
            case "INT" -> s.get(ValueLayout.JAVA_INT_UNALIGNED, o);
            case "LONG" -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, o);
            case "FLOAT" -> s.get(ValueLayout.JAVA_FLOAT_UNALIGNED, o);
            default -> s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, o);
        };
    }
}
