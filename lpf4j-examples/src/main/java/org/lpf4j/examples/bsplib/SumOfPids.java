package org.lpf4j.examples.bsplib;

import org.lpf4j.Context;
import org.lpf4j.Spmd;
import org.lpf4j.bsplib.Bsplib;

import java.lang.foreign.MemorySegment;

/**
 * The first BSPlib program: every process puts its pid into slot {@code pid} of an array on
 * process 0, which adds them and checks the sum against {@code p(p − 1)/2}. One superstep of p
 * puts of 8 bytes (h = p at process 0) after the one that registers the array.
 */
public final class SumOfPids implements Spmd {
    private static final long serialVersionUID = 1L;

    /** Creates the program; it keeps no state. */
    public SumOfPids() {}

    @Override
    public void run(Context ctx) {
        try (Bsplib bsp = Bsplib.begin(ctx)) {
            int p = bsp.nprocs();
            long[] pids = new long[p];
            bsp.pushReg(MemorySegment.ofArray(pids));
            bsp.sync();
            bsp.put(0, MemorySegment.ofArray(new long[] {bsp.pid()}), MemorySegment.ofArray(pids), 8L * bsp.pid(), 8);
            bsp.sync();
            if (bsp.pid() == 0) {
                long sum = 0;
                for (long v : pids) sum += v;
                if (sum != (long) p * (p - 1) / 2) throw new IllegalStateException("SumOfPids: got " + sum + " at p=" + p);
                Reports.report(ctx, "sum of the pids of " + p + " processes: " + sum + " (check: p(p-1)/2 = " + sum + ")\n");
            }
            bsp.popReg(MemorySegment.ofArray(pids));
            bsp.sync();
        }
    }
}
