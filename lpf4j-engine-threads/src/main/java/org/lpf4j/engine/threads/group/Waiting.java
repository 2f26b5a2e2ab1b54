package org.lpf4j.engine.threads.group;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * How a process waits in a barrier, shared by both barrier algorithms: spin for an adaptive
 * time ({@link SpinBudgets}), then yield for a bounded time, then park until whoever releases it
 * unparks it ({@link ThreadsPolicy}); and, once past spinning, give up with a
 * {@link org.lpf4j.FatalException} as soon as the round can no longer complete
 * ({@link Participants#abandonment}). Counts, per process, in which phase each wait ended
 * ({@link #ended}: whether spinning pays is visible without timing anything). Allocation-free.
 */
public final class Waiting {
    /** The condition a barrier waits for: one poll of shared memory, no side effects. */
    public interface Release {
        /**
         * @param a the barrier's first token (e.g. a generation or a slot index)
         * @param b the barrier's second token (e.g. a round), or unused
         * @return whether the wait is over
         */
        boolean released(long a, long b);
    }

    /**
     * The clock is read once per this many polls while spinning: few, because the cost of one
     * {@link Thread#onSpinWait()} differs tenfold between CPUs and the budget must bound the spin,
     * not the batch ({@code docs/performance.md}).
     */
    private static final int SPINS_PER_CLOCK_READ = 4;

    private final Participants team;
    /** The thread parked for each process, or null: wakers unpark exactly these. */
    private final AtomicReferenceArray<Thread> parked;
    private final SpinBudgets spin;
    private final CpuSpreading spreading;
    /** Per pid (padded): how many waits ended while spinning, yielding, parked. */
    private final long[] ends;
    private static final int STRIDE = 16;
    /** Phases for {@link #ended}. */
    public static final int SPINNING = 0, YIELDING = 1, PARKED = 2;

    public Waiting(Participants team, int parties) {
        this.team = team;
        this.parked = new AtomicReferenceArray<>(parties);
        this.spin = new SpinBudgets(parties, team.policy().spinNanos);
        this.spreading = new CpuSpreading(parties, team.policy().spreadCpus);
        this.ends = new long[STRIDE * (parties + 1)];
    }

    /**
     * Returns once {@code release.released(a, b)}.
     *
     * @param pid   the waiting process
     * @param round the barrier round it waits in (for {@link Participants#abandonment})
     * @throws org.lpf4j.FatalException if the round can no longer complete
     */
    public void await(Release release, int pid, long round, long a, long b) {
        await(release, pid, round, a, b, true);
    }

    /**
     * Returns once {@code release.released(a, b)}, spinning first only if {@code spinMayPay}.
     *
     * @param spinMayPay false when the waiter knows that whoever it waits for cannot be running
     *                   (more processes are missing than could run beside it): it then yields at once
     * @see #await(Release, int, long, long, long)
     */
    public void await(Release release, int pid, long round, long a, long b, boolean spinMayPay) {
        final ThreadsPolicy policy = team.policy();
        final long budget = spinMayPay ? spin.nanos(pid) : 0;
        if (budget > 0) {
            final long spinUntil = System.nanoTime() + budget;
            do {
                for (int i = 0; i < SPINS_PER_CLOCK_READ; i++) {
                    if (release.released(a, b)) {
                        spin.paid(pid);
                        ends[STRIDE * (pid + 1) + SPINNING]++;
                        spreading.afterFastWait(pid);
                        return;
                    }
                    Thread.onSpinWait();
                }
            } while (System.nanoTime() - spinUntil < 0);
            spin.wasted(pid);
        }
        final long yieldUntil = System.nanoTime() + policy.yieldNanos;
        do {
            if (release.released(a, b)) {
                ends[STRIDE * (pid + 1) + YIELDING]++;
                spreading.afterSlowWait(pid);
                return;
            }
            checkAbandoned(release, pid, round, a, b);
            Thread.yield();
        } while (System.nanoTime() - yieldUntil < 0);
        // The waiting thread registers itself (not the thread that started the process: any
        // thread may drive a context), then re-checks, so a release cannot slip between.
        final Thread me = Thread.currentThread();
        boolean interrupted = Thread.interrupted(); // parkNanos would not block with the flag set
        try {
            while (true) {
                parked.set(pid, me);
                if (release.released(a, b)) {
                    ends[STRIDE * (pid + 1) + PARKED]++;
                    spreading.afterSlowWait(pid);
                    return;
                }
                checkAbandoned(release, pid, round, a, b);
                LockSupport.parkNanos(this, ThreadsPolicy.PARK_SAFETY_NANOS);
                if (Thread.interrupted()) interrupted = true;
            }
        } finally {
            parked.set(pid, null);
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /**
     * Fails the team if the round cannot complete. The condition is polled again after the
     * team's state: whoever completes a round releases it before it can leave, so a departure
     * seen here with the wait still not over really is a missing process.
     */
    private void checkAbandoned(Release release, int pid, long round, long a, long b) {
        String why = team.abandonment(pid, round);
        if (why != null && !release.released(a, b)) {
            team.fail(why, null);
            throw team.fatal(pid);
        }
    }

    /**
     * @param pid   a process
     * @param phase {@link #SPINNING}, {@link #YIELDING} or {@link #PARKED}
     * @return how many of pid's waits ended in that phase (read by pid, or after a barrier)
     */
    public long ended(int pid, int phase) { return ends[STRIDE * (pid + 1) + phase]; }

    /** @return how often {@code pid} moved itself off a CPU it shared with another process ({@link CpuSpreading}) */
    public long moves(int pid) { return spreading.moves(pid); }

    /** Unparks {@code pid} if it is parked. */
    public void wake(int pid) {
        Thread t = parked.get(pid);
        if (t != null) LockSupport.unpark(t);
    }

    /** Unparks every parked process, and every process's own thread (the team failed). */
    public void wakeAll() {
        for (int i = 0; i < parked.length(); i++) {
            wake(i);
            Thread t = team.thread(i);
            if (t != null) LockSupport.unpark(t);
        }
    }

    /** Unparks every parked process (a round was released). */
    public void wakeParked() {
        for (int i = 0; i < parked.length(); i++) wake(i);
    }
}
