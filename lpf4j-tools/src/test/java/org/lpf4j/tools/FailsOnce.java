package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Spmd;
import org.lpf4j.cr.Checkpoints;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A checkpointing SPMD program for {@code lpf run --restarts} in this JVM: sums pid + step over
 * 200 steps with a checkpoint every 10; pid {@code nprocs-1} throws at step 55 in the first run
 * of the JVM. Prints "sum S, resumed at R" (R = -1 for a fresh start).
 */
public final class FailsOnce implements Spmd {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger RUNS = new AtomicInteger();

    /** For lpf run. */
    public FailsOnce() {}

    @Override
    public void run(Context ctx) {
        int pid = ctx.pid(), p = ctx.nprocs();
        if (pid == 0) RUNS.incrementAndGet();
        ctx.resizeMemoryRegister(Checkpoints.REGISTER_SLOTS);
        ctx.resizeMessageQueue(Checkpoints.queueEntries(p));
        ctx.sync();
        long[] sum = new long[1];
        int resumedAt = -1;
        try (Checkpoints cr = Checkpoints.init(ctx, "FailsOnce")) {
            cr.protect("sum", MemorySegment.ofArray(sum));
            Checkpoints.Value<Integer> step = cr.value("step", 0);
            if (cr.resume().isPresent()) resumedAt = step.get();
            while (step.get() < 200) {
                int s = step.get();
                if (pid == p - 1 && s == 55 && RUNS.get() == 1) throw new IllegalStateException("injected at step 55");
                sum[0] += pid + s;
                step.set(s + 1);
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                if (step.get() % 10 == 0) cr.checkpointNow(); else cr.checkpoint();
            }
        }
        if (pid == 0) ctx.args().output().setString(0, "sum " + sum[0] + ", resumed at " + resumedAt + "\n");
    }
}
