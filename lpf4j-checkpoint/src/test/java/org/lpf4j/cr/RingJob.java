package org.lpf4j.cr;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A deterministic BSP job whose result depends on every superstep: each process keeps n longs;
 * each step it puts its first word to the next pid and folds the word it received into all of
 * its own, and adds it to a declared value. Its loop is the one the documentation shows
 * ({@code for (t = cr.iteration(); t < steps; t = cr.checkpoint())}). Takes a checkpoint at every
 * checkpoint point asked for ({@code every} steps), and can
 * be told to fail once: {@code victim} throws at step {@code failAt} in the first run only.
 */
final class RingJob implements Spmd {
    private static final long serialVersionUID = 1L;
    final int n, steps, every, victim, failAt;
    final long[][] results;
    final long[] sums;
    final AtomicInteger runs = new AtomicInteger();
    final AtomicInteger restoredAt = new AtomicInteger(-1);
    /** Computation time per step, so that writes finish (and commit) a few steps after they start. */
    volatile int pauseMillis;

    RingJob(int p, int n, int steps, int every, int victim, int failAt) {
        this.n = n;
        this.steps = steps;
        this.every = every;
        this.victim = victim;
        this.failAt = failAt;
        this.results = new long[p][];
        this.sums = new long[p];
    }

    @Override
    public void run(Context ctx) throws InterruptedException {
        int pid = ctx.pid(), p = ctx.nprocs();
        if (pid == 0) runs.incrementAndGet();
        long[] state = new long[n];
        long[] inbox = new long[1];
        for (int i = 0; i < n; i++) state[i] = pid * 1000L + i;
        ctx.resizeMemoryRegister(2 + Checkpoints.REGISTER_SLOTS);
        ctx.resizeMessageQueue(2 + Checkpoints.queueEntries(p));
        ctx.sync();
        Memslot src = ctx.registerGlobal(MemorySegment.ofArray(state));
        Memslot in = ctx.registerGlobal(MemorySegment.ofArray(inbox));
        try (Checkpoints cr = Checkpoints.init(ctx, "ring " + n + " " + steps)) {
            cr.protect("state", MemorySegment.ofArray(state));
            // State the loop body updates, beside the segment: the sum of the words received.
            Checkpoints.Value<Long> received = cr.value("received", 0L);
            cr.resume().ifPresent(r -> { if (pid == 0) restoredAt.set((int) cr.iteration()); });
            for (long t = cr.iteration(); t < steps; ) {
                int s = (int) t;
                if (pid == victim && s == failAt && runs.get() == 1) {
                    throw new IllegalStateException("injected failure at pid " + pid + ", step " + s);
                }
                ctx.put(src, 0, (pid + 1) % p, in, 0, 8);
                ctx.sync();
                for (int i = 0; i < n; i++) state[i] = state[i] * 31 + inbox[0] + s;
                received.set(received.get() + inbox[0]);
                if (pauseMillis > 0) Thread.sleep(pauseMillis);
                t = every > 0 && (s + 1) % every == 0 ? cr.checkpointNow() : cr.checkpoint();
            }
            sums[pid] = received.get();
        }
        results[pid] = state.clone();
    }

    /** @return the results of a failure-free run computed sequentially */
    static long[][] expected(int p, int n, int steps) { return simulate(p, n, steps).states(); }

    /** @return the sums of received words of a failure-free run, by pid */
    static long[] expectedSums(int p, int n, int steps) { return simulate(p, n, steps).sums(); }

    private record Simulated(long[][] states, long[] sums) {}

    private static Simulated simulate(int p, int n, int steps) {
        long[][] st = new long[p][n];
        long[] sums = new long[p];
        for (int q = 0; q < p; q++) for (int i = 0; i < n; i++) st[q][i] = q * 1000L + i;
        for (int s = 0; s < steps; s++) {
            long[] first = new long[p];
            for (int q = 0; q < p; q++) first[q] = st[q][0];
            for (int q = 0; q < p; q++) {
                long got = first[(q - 1 + p) % p];
                sums[q] += got;
                for (int i = 0; i < n; i++) st[q][i] = st[q][i] * 31 + got + s;
            }
        }
        return new Simulated(st, sums);
    }
}
