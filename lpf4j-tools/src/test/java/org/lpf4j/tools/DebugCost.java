package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.debug.Debug;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The debug layer's cost per superstep beside the same program without it, in one run: an empty
 * sync and an 8-byte put to the next pid + sync, at each p of the first argument (default 2,4),
 * as sections of {@code Lpf.root()} (the engine's own context when {@code lpf.debug} is off) and
 * of {@code Debug.wrap(Lpf.root())}, taking turns, 7 rounds; prints the median time per superstep
 * at pid 0 of each, their ratio, and the median of the ratios of the rounds (each round times both
 * back to back, so that ratio is the one a busy machine moves least). For docs/performance.md ("Debug layer"):
 * {@code bin/lpf run --engine mpi -p 4 --class-path lpf4j-tools/target/test-classes org.lpf4j.tools.DebugCost 2,4}.
 */
public final class DebugCost {
    private DebugCost() {}

    private static final int ROUNDS = 7, WARM = 2000, STEPS = 5000;
    /** pid 0's last figure, in µs per superstep (pid 0 runs in this JVM on every engine). */
    private static volatile double last;

    /** The measured section: {@code STEPS} supersteps after {@code WARM}, timed at pid 0. */
    private record Steps(boolean put) implements Spmd {
        @Override
        public void run(Context ctx) {
            int s = ctx.pid(), next = (s + 1) % ctx.nprocs();
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            Memslot x = ctx.registerGlobal(MemorySegment.ofArray(new long[2]));
            ctx.sync();
            long t0 = 0;
            for (int i = 0; i < WARM + STEPS; i++) {
                if (i == WARM) t0 = System.nanoTime();
                if (put) ctx.put(x, 0, next, x, 8, 8);
                ctx.sync();
            }
            if (s == 0) last = (System.nanoTime() - t0) / 1e3 / STEPS;
            ctx.deregister(x);
        }
    }

    public static void main(String[] args) {
        Context plain = Lpf.root(); // the other ranks of a launched engine serve rank 0's sections from here
        Context debug = Debug.wrap(plain);
        System.out.println("lpf.debug=" + Lpf.DEBUG.get() + ", Lpf.root() is " + plain.getClass().getSimpleName()
                + ", the checked root " + debug.getClass().getSimpleName());
        int[] procs = Arrays.stream((args.length > 0 ? args[0] : "2,4").split(",")).mapToInt(Integer::parseInt).toArray();
        for (int p : procs) {
            for (boolean put : new boolean[] {false, true}) {
                double[] off = new double[ROUNDS], on = new double[ROUNDS], ratio = new double[ROUNDS];
                for (int r = 0; r < ROUNDS; r++) {
                    plain.exec(p, new Steps(put));
                    off[r] = last;
                    debug.exec(p, new Steps(put));
                    on[r] = last;
                    ratio[r] = on[r] / off[r];
                }
                Arrays.sort(off);
                Arrays.sort(on);
                Arrays.sort(ratio);
                System.out.printf("p = %d, %-16s without %7.2f us, with the debug layer %7.2f us (medians): %5.1fx;"
                                + " median of the rounds' ratios %5.1fx (rounds %.2f-%.2f / %.2f-%.2f us)%n",
                        p, put ? "8 B put + sync:" : "empty sync:", off[ROUNDS / 2], on[ROUNDS / 2], on[ROUNDS / 2] / off[ROUNDS / 2],
                        ratio[ROUNDS / 2], off[0], off[ROUNDS - 1], on[0], on[ROUNDS - 1]);
            }
        }
    }
}
