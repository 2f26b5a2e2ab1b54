package org.lpf4j.superstep;

import org.lpf4j.Context;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The root context's {@code probe()} of a multi-JVM engine: a section of every process of the job
 * measures (the engine's section probe, cached per job), and the root reports the whole job as
 * its machine (p = freeP = the job's size). The root's machine is measured once per JVM and
 * engine ({@link #cached}, the one cache of root machines for every multi-JVM engine); later
 * calls cost a map lookup.
 */
public final class WholeJobProbe {
    private WholeJobProbe() {}

    private static final ConcurrentHashMap<String, Machine> ROOTS = new ConcurrentHashMap<>();

    /**
     * @param engine the engine (its root's key in the cache)
     * @param size   the job's processes
     * @param exec   runs an SPMD function on that many processes (the root's {@code exec})
     * @return pid 0's figures, for a machine of {@code size} processes; measured on the first call
     */
    public static Machine probe(String engine, int size, BiConsumer<Integer, Spmd> exec) {
        return cached(engine + "/" + size, () -> measure(size, exec));
    }

    /**
     * @param key     what the machine is of (engine, job size, layout)
     * @param measure measures it (collectively, through the root's {@code exec})
     * @return the machine, measured on the first call per key in this JVM
     */
    public static Machine cached(String key, Supplier<Machine> measure) {
        Machine m = ROOTS.get(key);
        if (m != null) return m;
        synchronized (ROOTS) { // a collective measurement: not inside the map's own compute
            m = ROOTS.get(key);
            if (m == null) {
                m = measure.get();
                ROOTS.put(key, m);
            }
            return m;
        }
    }

    private static Machine measure(int size, BiConsumer<Integer, Spmd> exec) {
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
