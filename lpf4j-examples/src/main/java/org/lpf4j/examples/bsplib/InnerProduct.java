package org.lpf4j.examples.bsplib;

import org.lpf4j.Context;
import org.lpf4j.Spmd;
import org.lpf4j.bsplib.Bsplib;

import java.lang.foreign.MemorySegment;

/**
 * BSPedupack's {@code bspinprod}: the inner product of two vectors of length n, cyclically
 * distributed (component i on process i mod p). Each process sums its part, puts the partial
 * sum to every process (h = p doubles), and all add the p partials in pid order, so all hold the
 * same result; process 0 checks it against the sequential sum (exact: the components are small
 * integers). Argument: n (default 1 000 000). Cost: O(n/p) flops, two BSPlib supersteps (the
 * registration, the all-gather of h = p doubles).
 */
public final class InnerProduct implements Spmd {
    private static final long serialVersionUID = 1L;

    /** Creates the program; it keeps no state. */
    public InnerProduct() {}

    static double x(long i) { return (double) (i % 1000 - 500); }

    static double y(long i) { return (double) ((7 * i) % 311); }

    /**
     * The SPMD part: every process gets the same value.
     *
     * @param bsp this process's BSPlib
     * @param n   the vector length
     * @return x·y
     */
    public static double innerProduct(Bsplib bsp, long n) {
        int p = bsp.nprocs(), s = bsp.pid();
        double partial = 0;
        for (long i = s; i < n; i += p) partial += x(i) * y(i);
        double[] partials = new double[p];
        MemorySegment all = MemorySegment.ofArray(partials);
        bsp.pushReg(all);
        bsp.sync();
        MemorySegment mine = MemorySegment.ofArray(new double[] {partial});
        for (int q = 0; q < p; q++) bsp.put(q, mine, all, 8L * s, 8);
        bsp.sync();
        double sum = 0;
        for (double v : partials) sum += v;
        bsp.popReg(all);
        return sum;
    }

    @Override
    public void run(Context ctx) {
        int n = Reports.size("InnerProduct", ctx.args().symbols(), 1_000_000);
        try (Bsplib bsp = Bsplib.begin(ctx)) {
            double got = innerProduct(bsp, n);
            bsp.sync();
            if (bsp.pid() == 0) {
                double want = 0;
                for (long i = 0; i < n; i++) want += x(i) * y(i);
                if (got != want) throw new IllegalStateException("InnerProduct: " + got + " but sequentially " + want);
                Reports.report(ctx, String.format("inner product of length %d on %d processes: %.1f (sequential check: equal)%n",
                        n, bsp.nprocs(), got));
            }
        }
    }
}
