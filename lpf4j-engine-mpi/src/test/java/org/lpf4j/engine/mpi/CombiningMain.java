package org.lpf4j.engine.mpi;

import org.lpf4j.Capability;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;

import java.io.Serializable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run under mpirun by {@link EngineTest}: combining puts across processes. Every process says it
 * supports {@link Capability#COMBINING_PUTS}; every process combines its vector into every
 * process's (its own included) with a sum and a max, three rounds, for vectors of 5 elements (the
 * packed path) and 1000 (a large put); every process checks every element; a combining put whose
 * operator does not serialize is refused at the put, naming why. Prints {@code COMBINING OK n=<n>}.
 */
public final class CombiningMain {
    private CombiningMain() {}

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

    /** An operator that cannot cross JVMs (not Serializable). */
    static final class Local implements MsgAttr.ElementCombiner {
        @Override
        public void combine(long n, MemorySegment src, long so, MemorySegment dst, long d) {
            throw new AssertionError("never applied");
        }
    }

    static long value(int pid, int k, int round) { return (pid + 1) * 1_000L + k * 7L - round * 13L; }

    record Check(int n) implements Spmd {
        @Override
        public void run(Context ctx) {
            int s = ctx.pid(), p = ctx.nprocs();
            if (!ctx.supports(Capability.COMBINING_PUTS)) throw new AssertionError("pid " + s + ": COMBINING_PUTS not supported");
            MsgAttr sum = MsgAttr.combining(8, new Sum()), max = MsgAttr.combining(8, new Max());
            MemorySegment src = Arena.ofAuto().allocate(8L * n), sums = Arena.ofAuto().allocate(8L * n);
            MemorySegment maxes = MemorySegment.ofArray(new long[n]); // a heap destination too
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
                ctx.sync();
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
                    long gotSum = sums.getAtIndex(ValueLayout.JAVA_LONG, k), gotMax = maxes.getAtIndex(ValueLayout.JAVA_LONG, k);
                    if (gotSum != expectSum || gotMax != expectMax) {
                        throw new AssertionError("pid " + s + " n=" + n + " round " + round + " element " + k + ": sum "
                                + gotSum + " (expected " + expectSum + "), max " + gotMax + " (expected " + expectMax + ")");
                    }
                }
            }
            MsgAttr local = MsgAttr.combining(8, new Local());
            try {
                ctx.put(srcSlot, 0, (s + 1) % p, sumSlot, 0, 8, local);
                throw new AssertionError("pid " + s + ": a combining put with a non-serializable operator was accepted");
            } catch (IllegalArgumentException e) {
                if (!e.getMessage().contains("is not Serializable")) throw new AssertionError("pid " + s + ": " + e.getMessage(), e);
            }
            ctx.sync();
            ctx.deregister(maxSlot);
            ctx.deregister(sumSlot);
            ctx.deregister(srcSlot);
        }
    }

    public static void main(String[] args) {
        Context root = Lpf.root();
        for (int n : new int[]{5, 1000}) {
            root.exec(root.probe().p(), new Check(n));
            System.out.println("COMBINING OK n=" + n);
        }
    }
}
