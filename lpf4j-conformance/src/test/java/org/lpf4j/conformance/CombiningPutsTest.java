package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Capability;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;

import java.io.Serializable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Combining puts ({@link MsgAttr#combining}) on every engine that supports them: every process
 * combines its vector into every process's (its own included) with a sum and a max, in three
 * supersteps (an operator is reused after its first superstep), with vectors of 5 elements and of
 * 1000, into a native and a heap destination; every process checks every element. The operators
 * are named serializable classes, so they cross JVMs on multi-process engines.
 */
@Timeout(60)
class CombiningPutsTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /** Element-wise sum of longs. */
    static final class Sum implements MsgAttr.ElementCombiner, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public void combine(long n, MemorySegment src, long so, MemorySegment dst, long d) {
            for (long k = 0; k < n; k++) dst.set(LONG, d + 8 * k, dst.get(LONG, d + 8 * k) + src.get(LONG, so + 8 * k));
        }
    }

    /** Element-wise maximum of longs. */
    static final class Max implements MsgAttr.ElementCombiner, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public void combine(long n, MemorySegment src, long so, MemorySegment dst, long d) {
            for (long k = 0; k < n; k++) dst.set(LONG, d + 8 * k, Math.max(dst.get(LONG, d + 8 * k), src.get(LONG, so + 8 * k)));
        }
    }

    /** Process {@code pid}'s element {@code k} in superstep {@code round}: the maximum moves between pids. */
    private static long value(int pid, int k, int round) {
        return (pid + 1) * 1_000L * (k % 2 == 0 ? 1 : -1) + k * 7L - round * 13L;
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void everyProcessCombinesIntoEveryProcessElementWise(String engine, int p) {
        for (int n : new int[]{5, 1000}) {
            Matrix.exec(engine, p, ctx -> {
                assumeTrue(ctx.supports(Capability.COMBINING_PUTS), engine + " has no combining puts");
                int s = ctx.pid();
                MsgAttr sum = MsgAttr.combining(8, new Sum()), max = MsgAttr.combining(8, new Max());
                MemorySegment src = Arena.ofAuto().allocate(8L * n), sums = Arena.ofAuto().allocate(8L * n);
                MemorySegment maxes = MemorySegment.ofArray(new long[n]);
                ctx.resizeMemoryRegister(3);
                ctx.resizeMessageQueue(4L * p);
                ctx.sync();
                Memslot srcSlot = ctx.registerLocal(src), sumSlot = ctx.registerGlobal(sums), maxSlot = ctx.registerGlobal(maxes);
                ctx.sync();
                for (int round = 0; round < 3; round++) {
                    for (int k = 0; k < n; k++) {
                        src.setAtIndex(ValueLayout.JAVA_LONG, k, value(s, k, round));
                        sums.setAtIndex(ValueLayout.JAVA_LONG, k, 0);
                        maxes.setAtIndex(ValueLayout.JAVA_LONG, k, Long.MIN_VALUE);
                    }
                    ctx.sync(); // the resets are done everywhere before anything is combined into them
                    for (int d = 0; d < p; d++) {
                        ctx.put(srcSlot, 0, d, sumSlot, 0, 8L * n, sum);
                        ctx.put(srcSlot, 0, d, maxSlot, 0, 8L * n, max);
                    }
                    ctx.sync();
                    for (int k = 0; k < n; k++) {
                        long expectSum = 0, expectMax = Long.MIN_VALUE;
                        for (int q = 0; q < p; q++) {
                            expectSum += value(q, k, round);
                            expectMax = Math.max(expectMax, value(q, k, round));
                        }
                        String at = "pid " + s + " n=" + n + " round " + round + " element " + k;
                        assertEquals(expectSum, sums.getAtIndex(ValueLayout.JAVA_LONG, k), at + ": sum");
                        assertEquals(expectMax, maxes.getAtIndex(ValueLayout.JAVA_LONG, k), at + ": max");
                    }
                }
                ctx.deregister(maxSlot);
                ctx.deregister(sumSlot);
                ctx.deregister(srcSlot);
            });
        }
    }
}
