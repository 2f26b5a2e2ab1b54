package org.lpf4j.engine.threads;

/**
 * The waiting policy of the threads engine's barrier, resolved once per section from the
 * engine's parameters: spin while every process can have a core, back off quickly to yielding
 * and parking when processes outnumber cores (then a spinning waiter only steals time from the
 * process it waits for).
 */
final class ThreadsPolicy {
    /** Parked waiters re-check at this period even if nobody wakes them: a hang cannot last. */
    static final long PARK_SAFETY_NANOS = 10_000_000L;

    final int spins;
    final int yields;

    private ThreadsPolicy(int spins, int yields) {
        this.spins = spins;
        this.yields = yields;
    }

    static ThreadsPolicy forProcesses(int p) {
        int cores = Runtime.getRuntime().availableProcessors();
        int spin = ThreadsEngine.SPIN.get();
        int yield = ThreadsEngine.YIELD.get();
        boolean oversubscribed = p > cores;
        if (spin < 0) spin = oversubscribed ? 64 : 20_000;
        if (yield < 0) yield = oversubscribed ? 64 : 200;
        return new ThreadsPolicy(spin, yield);
    }
}
