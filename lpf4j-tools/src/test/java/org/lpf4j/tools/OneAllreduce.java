package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Collectives;
import org.lpf4j.coll.Ops;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A user program for {@link QuietProgramTest}: a Collectives object (which probes at p > 2) and one allreduce. */
public class OneAllreduce implements Spmd {
    /** For lpf run. */
    public OneAllreduce() {}

    @Override
    public void run(Context ctx) {
        int p = ctx.nprocs();
        ctx.resizeMemoryRegister(2);
        ctx.resizeMessageQueue(2L * p);
        ctx.sync();
        try (Arena arena = Arena.ofShared(); Collectives coll = Collectives.init(ctx, 1, Double.BYTES, 0)) {
            MemorySegment x = arena.allocate(Double.BYTES);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            x.set(ValueLayout.JAVA_DOUBLE, 0, 1.0);
            coll.allreduce(x, xs, Double.BYTES, Ops.DOUBLE_SUM);
            ctx.sync();
            double sum = x.get(ValueLayout.JAVA_DOUBLE, 0);
            if (sum != p) throw new IllegalStateException("pid " + ctx.pid() + ": allreduce gave " + sum + ", not " + p);
            ctx.deregister(xs);
            if (ctx.pid() == 0) System.out.println("allreduce of " + p + " ones: " + sum);
        }
    }
}
