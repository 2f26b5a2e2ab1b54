package org.lpf4j.superstep;

import org.lpf4j.Context;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;

import java.util.function.BiConsumer;

/**
 * The root context's {@code probe()} of a multi-JVM engine: a section of every process of the job
 * measures (the engine's section probe, cached per job), and the root reports the whole job as
 * its machine (p = freeP = the job's size).
 */
public final class WholeJobProbe {
    private WholeJobProbe() {}

    /**
     * @param size the job's processes
     * @param exec runs an SPMD function on that many processes (the root's {@code exec})
     * @return pid 0's figures, for a machine of {@code size} processes
     */
    public static Machine probe(int size, BiConsumer<Integer, Spmd> exec) {
        exec.accept(size, new Measure());
        Machine m = Measure.last;
        long[] sizes = m.messageSizes();
        double[] g = new double[sizes.length], l = new double[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            g[i] = m.g(sizes[i]);
            l[i] = m.l(sizes[i]);
        }
        return new Machine(size, size, sizes, g, l);
    }

    /** Measures on every process; pid 0 keeps the result. */
    static final class Measure implements Spmd {
        private static final long serialVersionUID = 1L;
        static volatile Machine last;

        @Override
        public void run(Context ctx) {
            Machine m = ctx.probe();
            if (ctx.pid() == 0) last = m;
        }
    }
}
