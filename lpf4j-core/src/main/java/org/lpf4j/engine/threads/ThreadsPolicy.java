package org.lpf4j.engine.threads;

/**
 * The waiting policy of the threads engine's barrier, resolved once per section from the
 * engine's parameters. A waiter spins for a bounded <em>time</em> (an uncontended barrier
 * completes in well under a microsecond when every process has a core), then yields a bounded
 * number of times, then parks until the last arriver unparks it. Spinning is bounded by time,
 * not iterations, because the cost of {@link Thread#onSpinWait()} differs tenfold between CPUs,
 * and because a spinner whose partner has lost its core only delays that partner: measured on
 * a loaded 2-core machine, p = 2 empty syncs took 32 µs with 20 000 spin iterations and 2 µs
 * with 100. When processes outnumber cores the waiter hardly spins at all.
 */
final class ThreadsPolicy {
    /** Parked waiters re-check at this period even if nobody wakes them: a hang cannot last. */
    static final long PARK_SAFETY_NANOS = 10_000_000L;
    /** Default spin time when every process can have a core. */
    static final long DEFAULT_SPIN_NANOS = 5_000L;
    /** Default spin time when processes outnumber cores. */
    static final long OVERSUBSCRIBED_SPIN_NANOS = 200L;

    final long spinNanos;
    final int yields;

    private ThreadsPolicy(long spinNanos, int yields) {
        this.spinNanos = spinNanos;
        this.yields = yields;
    }

    static ThreadsPolicy forProcesses(int p) {
        int cores = Runtime.getRuntime().availableProcessors();
        long spin = ThreadsEngine.SPIN.get();
        int yield = ThreadsEngine.YIELD.get();
        boolean oversubscribed = p > cores;
        if (spin < 0) spin = oversubscribed ? OVERSUBSCRIBED_SPIN_NANOS : DEFAULT_SPIN_NANOS;
        if (yield < 0) yield = oversubscribed ? 32 : 64;
        return new ThreadsPolicy(spin, yield);
    }
}
