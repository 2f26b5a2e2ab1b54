package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Machine;
import org.lpf4j.MachineLevels;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The two levels of the hybrid machine ({@link Machine#levels()}) on 2 JVMs × t threads: at the
 * root (whole machine) and inside sections of p = 2t and p = 2t − 1 processes, the node layout is
 * exactly the section's, the level machines have the right p and positive finite figures, and
 * every process reports the same figures (checked at pid 0). The threads engine reports no
 * levels. Prints {@code LEVELS ...} lines with the figures and {@code LEVELS OK}.
 */
public final class LevelsMain {
    private LevelsMain() {}

    static final int FIGURES = 6;

    public static void main(String[] args) {
        int t = Integer.parseInt(args[0]);
        Context root = Lpf.root("hybrid");
        Machine m = root.probe();
        check(m, new int[] {t, t}, "root");
        MachineLevels lv = m.levels().orElseThrow();
        for (long size : new long[] {8, 32768}) {
            System.out.printf("LEVELS %d B: whole g=%.3g l=%.3g; intra (%d threads) g=%.3g l=%.3g; inter (%d nodes) g=%.3g l=%.3g%n",
                    size, m.g(size), m.l(size), lv.intra().p(), lv.intra().g(size), lv.intra().l(size), lv.inter().p(),
                    lv.inter().g(size), lv.inter().l(size));
        }
        for (int p : new int[] {2 * t, 2 * t - 1}) {
            if (p < 2) continue;
            root.exec(p, new InSection(t), Args.NONE);
            System.out.println("LEVELS section p=" + p + " OK");
        }
        if (Lpf.root("threads").probe().levels().isPresent()) throw new AssertionError("the threads engine reports levels");
        System.out.println("LEVELS OK");
    }

    /** Throws unless {@code m} has levels with exactly these node sizes and sane figures. */
    static void check(Machine m, int[] sizes, String where) {
        MachineLevels lv = m.levels().orElseThrow(() -> new AssertionError(where + ": no levels in " + m));
        if (lv.nodes() != sizes.length || lv.p() != m.p()) throw new AssertionError(where + ": layout " + lv);
        int first = 0;
        for (int k = 0; k < sizes.length; k++) {
            if (lv.nodeSize(k) != sizes[k] || lv.firstPid(k) != first) throw new AssertionError(where + ": node " + k + " of " + lv);
            for (int q = first; q < first + sizes[k]; q++) if (lv.nodeOf(q) != k) throw new AssertionError(where + ": nodeOf(" + q + ")");
            first += sizes[k];
        }
        if (lv.intra().p() != sizes[0] || lv.inter().p() != sizes.length) throw new AssertionError(where + ": level sizes " + lv);
        for (Machine x : new Machine[] {m, lv.intra(), lv.inter()}) {
            for (long size : x.messageSizes()) {
                double g = x.g(size), l = x.l(size);
                if (!(g > 0 && g < 1 && l > 0 && l < 10)) throw new AssertionError(where + ": figures at " + size + " B of " + x);
            }
        }
    }

    /** Every process checks its machine and sends its figures to pid 0, which compares them. */
    static final class InSection implements Spmd {
        private static final long serialVersionUID = 1L;
        private final int t;

        InSection(int t) { this.t = t; }

        @Override
        public void run(Context ctx) {
            int p = ctx.nprocs(), s = ctx.pid();
            Machine m = ctx.probe();
            int[] sizes = {(p + 1) / 2, p / 2};
            check(m, sizes, "pid " + s + " of " + p);
            MachineLevels lv = m.levels().orElseThrow();
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(p);
            ctx.sync();
            MemorySegment all = Arena.ofAuto().allocate(8L * FIGURES * p, 8);
            double[] mine = {m.g(8), m.l(8), lv.intra().g(8), lv.intra().l(8), lv.inter().g(32768), lv.inter().l(8)};
            for (int i = 0; i < FIGURES; i++) all.setAtIndex(ValueLayout.JAVA_DOUBLE, (long) FIGURES * s + i, mine[i]);
            Memslot slot = ctx.registerGlobal(all);
            ctx.sync();
            if (s != 0) ctx.put(slot, 8L * FIGURES * s, 0, slot, 8L * FIGURES * s, 8L * FIGURES);
            ctx.sync();
            if (s == 0) {
                for (int q = 1; q < p; q++) {
                    for (int i = 0; i < FIGURES; i++) {
                        double other = all.getAtIndex(ValueLayout.JAVA_DOUBLE, (long) FIGURES * q + i);
                        if (other != mine[i]) throw new AssertionError("pid " + q + " reports figure " + i + " = " + other
                                + ", pid 0 " + mine[i]);
                    }
                }
            }
            ctx.deregister(slot);
        }
    }
}
