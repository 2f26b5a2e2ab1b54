package org.lpf4j.engine.threads;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A reusable counting barrier for the processes of one {@link Team} that also sums a value over
 * its parties (the request counts of a superstep), so that the last arriver knows whether the
 * superstep has any communication at all.
 *
 * <p>Arrival is one {@code getAndAdd} on a shared word whose low 24 bits count the arrivals and
 * whose high bits accumulate the contributions; the last arriver publishes the sum and releases
 * the others by bumping a volatile generation. Waiters spin with {@link Thread#onSpinWait()}
 * for a bounded time ({@link ThreadsPolicy}), then yield, then park (and are unparked by the releaser), so that the barrier stays fast both
 * when every process has a core and when processes outnumber cores.
 *
 * <p>Every arrival and release is a volatile access, so the barrier is a happens-before edge from
 * everything each party did before arriving to everything each party does after leaving.
 * Allocation-free.
 */
final class Barrier {
    private static final int COUNT_BITS = 24;
    /** The spin loop reads the clock once per this many polls of the generation. */
    private static final int SPINS_PER_CLOCK_READ = 16;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    /** Contributions saturate so that the sum of all parties cannot overflow the 40 high bits. */
    private final long maxContribution;

    private final int parties;
    private final Team team;
    private final AtomicLong arrivals = new AtomicLong();
    // Padding keeps the generation, which waiters poll, off the arrival counter's cache line.
    @SuppressWarnings("unused") private long p01, p02, p03, p04, p05, p06, p07;
    private volatile long generation;
    @SuppressWarnings("unused") private long p11, p12, p13, p14, p15, p16, p17;
    /** Sum of the contributions of the last completed round; published by the generation write. */
    private long lastSum;
    /** The thread parked for each party, or null: the releaser unparks exactly these. */
    private final AtomicReferenceArray<Thread> parked;

    Barrier(Team team, int parties) {
        if (parties < 1 || parties > COUNT_MASK) {
            throw new IllegalArgumentException("Barrier: parties=" + parties + " not in [1, " + COUNT_MASK + "]");
        }
        this.team = team;
        this.parties = parties;
        this.parked = new AtomicReferenceArray<>(parties);
        this.maxContribution = (Long.MAX_VALUE >>> COUNT_BITS) / parties;
    }

    /**
     * Arrives and waits for all parties.
     *
     * @param pid          the arriving party
     * @param contribution a non-negative value summed over all parties (saturating)
     * @return the sum of all contributions of this round
     * @throws org.lpf4j.FatalException if the team fails, or a process leaves, while waiting
     */
    long await(int pid, long contribution) {
        final long gen = generation; // cannot advance before this party arrives
        long add = (Math.min(contribution, maxContribution) << COUNT_BITS) + 1;
        long now = arrivals.addAndGet(add);
        if ((now & COUNT_MASK) == parties) {
            arrivals.set(0);
            lastSum = now >>> COUNT_BITS;
            generation = gen + 1;
            wakeParked();
            return now >>> COUNT_BITS;
        }
        return waitForRelease(pid, gen);
    }

    private long waitForRelease(int pid, long gen) {
        final ThreadsPolicy policy = team.policy;
        final long spinUntil = System.nanoTime() + policy.spinNanos;
        do {
            for (int i = 0; i < SPINS_PER_CLOCK_READ; i++) {
                if (generation != gen) return lastSum;
                Thread.onSpinWait();
            }
        } while (System.nanoTime() - spinUntil < 0);
        final long yieldUntil = System.nanoTime() + policy.yieldNanos;
        do {
            if (generation != gen) return lastSum;
            team.checkWhileWaiting(pid);
            Thread.yield();
        } while (System.nanoTime() - yieldUntil < 0);
        // The waiting thread registers itself (not the thread that started the process: any
        // thread may drive a context), then re-checks, so a release cannot slip between.
        final Thread me = Thread.currentThread();
        while (true) {
            parked.set(pid, me);
            if (generation != gen) {
                parked.set(pid, null);
                return lastSum;
            }
            try {
                team.checkWhileWaiting(pid);
            } catch (RuntimeException e) {
                parked.set(pid, null);
                throw e;
            }
            LockSupport.parkNanos(this, ThreadsPolicy.PARK_SAFETY_NANOS);
            parked.set(pid, null);
            if (generation != gen) return lastSum;
        }
    }

    private void wakeParked() {
        for (int i = 0; i < parties; i++) {
            Thread t = parked.get(i);
            if (t != null) LockSupport.unpark(t);
        }
    }

    /** Wakes every party (used when the team fails so that waiters notice at once). */
    void wakeAll() {
        wakeParked();
        for (int i = 0; i < parties; i++) {
            Thread t = team.thread(i);
            if (t != null) LockSupport.unpark(t);
        }
    }
}
