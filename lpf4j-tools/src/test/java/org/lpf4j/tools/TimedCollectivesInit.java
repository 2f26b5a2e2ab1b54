package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Collectives;

/**
 * A user program for {@link ProbeCacheCommandTest}: times the JVM's first {@code Collectives.init}
 * (which probes at p &gt; 2) on pid 0, around the call, and prints it.
 */
public class TimedCollectivesInit implements Spmd {
    /** For lpf run. */
    public TimedCollectivesInit() {}

    @Override
    public void run(Context ctx) {
        ctx.resizeMemoryRegister(1);
        ctx.resizeMessageQueue(2L * ctx.nprocs());
        ctx.sync();
        long t0 = System.nanoTime();
        Collectives coll = Collectives.init(ctx, 1, Double.BYTES, 0);
        long nanos = System.nanoTime() - t0;
        coll.close();
        if (ctx.pid() == 0) System.out.printf("first Collectives.init at p=%d: %.1f ms%n", ctx.nprocs(), nanos / 1e6);
    }
}
