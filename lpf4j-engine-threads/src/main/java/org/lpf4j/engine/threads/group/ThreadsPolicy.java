package org.lpf4j.engine.threads.group;

/**
 * The waiting policy of the threads engine's barrier, resolved once per section from the
 * engine's parameters. A waiter spins for a bounded <em>time</em> (an uncontended barrier
 * completes in well under a microsecond when every process has a core), then yields for a
 * bounded time, then parks until the last arriver unparks it. The yield phase outlasts a
 * park/unpark round trip: otherwise a woken process arrives late, its partner parks in turn,
 * and the pair settles into a stable slow mode of one wake-up latency per superstep. Spinning is
 * bounded by time, not iterations, because the cost of {@link Thread#onSpinWait()} differs widely
 * between CPUs, and because a spinner whose partner has lost its core only delays that partner.
 * When processes outnumber cores the waiter hardly spins at all. Figures:
 * {@code docs/performance-log.md}.
 */
public final class ThreadsPolicy {
    /** Parked waiters re-check at this period even if nobody wakes them: a hang cannot last. */
    static final long PARK_SAFETY_NANOS = 10_000_000L;
    /** Default spin time when every process can have a core. */
    static final long DEFAULT_SPIN_NANOS = 5_000L;
    /** Default spin time when processes outnumber cores. */
    static final long OVERSUBSCRIBED_SPIN_NANOS = 200L;

    /** Default yield time when every process can have a core: longer than a park/unpark round trip. */
    static final long DEFAULT_YIELD_NANOS = 1_000_000L;
    /** Default yield time when processes outnumber cores. */
    static final long OVERSUBSCRIBED_YIELD_NANOS = 50_000L;

    public final long spinNanos;
    public final long yieldNanos;
    /** Whether processes that find too many of their group on one CPU move apart ({@link CpuSpreading}). */
    public final boolean spreadCpus;
    /**
     * How many other processes of the group can run at the same time as a waiting one: the cores
     * less one. A waiter that misses more processes than this spins for nothing (one of them
     * needs its core), so it yields at once.
     */
    public final int runningBeside;

    private ThreadsPolicy(long spinNanos, long yieldNanos, boolean spreadCpus, int runningBeside) {
        this.spinNanos = spinNanos;
        this.yieldNanos = yieldNanos;
        this.spreadCpus = spreadCpus;
        this.runningBeside = runningBeside;
    }

    /**
     * @param p     the processes of the group
     * @param spin  nanoseconds to spin, or -1 to choose from p vs cores
     * @param yield nanoseconds to yield, or -1 to choose from p vs cores
     * @return the policy, with CPU spreading on
     */
    public static ThreadsPolicy forProcesses(int p, long spin, long yield) {
        return forProcesses(p, spin, yield, true);
    }

    /**
     * @param p      the processes of the group
     * @param spin   nanoseconds to spin, or -1 to choose from p vs cores
     * @param yield  nanoseconds to yield, or -1 to choose from p vs cores
     * @param spread whether processes keep at most ⌈p / cores⌉ of the group on one CPU ({@link CpuSpreading})
     * @return the policy
     */
    public static ThreadsPolicy forProcesses(int p, long spin, long yield, boolean spread) {
        return forProcesses(p, spin, yield, spread, Runtime.getRuntime().availableProcessors());
    }

    /**
     * @param p      the processes of the group
     * @param spin   nanoseconds to spin, or -1 to choose from p vs cores
     * @param yield  nanoseconds to yield, or -1 to choose from p vs cores
     * @param spread whether processes keep at most ⌈p / cores⌉ of the group on one CPU ({@link CpuSpreading})
     * @param cores  the CPUs the group's processes run on
     * @return the policy
     */
    public static ThreadsPolicy forProcesses(int p, long spin, long yield, boolean spread, int cores) {
        boolean oversubscribed = p > cores;
        if (spin < 0) spin = oversubscribed ? OVERSUBSCRIBED_SPIN_NANOS : DEFAULT_SPIN_NANOS;
        if (yield < 0) yield = oversubscribed ? OVERSUBSCRIBED_YIELD_NANOS : DEFAULT_YIELD_NANOS;
        return new ThreadsPolicy(spin, yield, spread, Math.max(0, cores - 1));
    }
}
