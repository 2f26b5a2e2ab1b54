package org.lpf4j.examples.bsplib;

import org.lpf4j.Context;
import org.lpf4j.Spmd;
import org.lpf4j.bsplib.Bsplib;

import java.lang.foreign.MemorySegment;

/**
 * Reverses an array of n longs block-distributed over the processes (block b = ⌈n/p⌉): element
 * i moves to n − 1 − i, each contiguous run that lands on one process by one buffered put. Each
 * process then checks its block. Argument: n (default 1 000 000). One superstep of at most two
 * puts per process, h = n/p longs.
 */
public final class Reverse implements Spmd {
    private static final long serialVersionUID = 1L;

    /** Creates the program; it keeps no state. */
    public Reverse() {}

    @Override
    public void run(Context ctx) {
        int n = Reports.size("Reverse", ctx.args().symbols(), 1_000_000);
        try (Bsplib bsp = Bsplib.begin(ctx)) {
            int p = bsp.nprocs(), s = bsp.pid();
            int b = (n + p - 1) / p, lo = Math.min(n, s * b), hi = Math.min(n, lo + b);
            long[] x = new long[b], reversed = new long[b];
            for (int i = lo; i < hi; i++) x[i - lo] = i;
            MemorySegment dst = MemorySegment.ofArray(reversed);
            bsp.pushReg(dst);
            bsp.sync();
            // My elements lo..hi-1 go to n-1-hi+1 .. n-1-lo, a range that spans at most two blocks.
            int i = lo;
            while (i < hi) {
                int target = n - 1 - i, q = target / b;
                int first = q * b;                       // smallest global index of block q
                int count = Math.min(hi - i, target - first + 1);
                // x[i .. i+count-1] lands reversed on target .. target-count+1: put element-wise
                // runs would reverse order, so reverse the run locally first (a copy, no communication).
                long[] run = new long[count];
                for (int k = 0; k < count; k++) run[k] = x[i - lo + count - 1 - k];
                bsp.put(q, MemorySegment.ofArray(run), dst, 8L * (target - count + 1 - first), 8L * count);
                i += count;
            }
            bsp.sync();
            for (int g = lo; g < hi; g++) {
                if (reversed[g - lo] != n - 1 - g) {
                    throw new IllegalStateException("Reverse: element " + g + " is " + reversed[g - lo] + ", expected " + (n - 1 - g));
                }
            }
            bsp.popReg(dst);
            bsp.sync();
            Reports.report(ctx, "reversed " + n + " longs over " + p + " processes (every element checked)\n");
        }
    }
}
