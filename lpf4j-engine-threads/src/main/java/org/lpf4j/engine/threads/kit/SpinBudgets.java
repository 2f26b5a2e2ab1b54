package org.lpf4j.engine.threads.kit;

/**
 * How long each process of a team spins before it yields, adapted per process: the budget
 * doubles (up to the policy's spin time) when a wait ends while spinning and halves when the
 * spin runs out. When two processes share a core (the scheduler put them together, or other
 * load took the other core), spinning only delays the partner it waits for; the budget then
 * drops to its floor within a few supersteps and the waiter yields soon. Measured at p = 2 on
 * 2 cores in such a state: 20 µs per superstep with 100 µs of spin, against 3 µs with none.
 *
 * <p>Each budget is written only by its own process, on a cache line of its own. It never
 * drops below {@link #FLOOR_NANOS}.
 */
public final class SpinBudgets {
    private static final int STRIDE = 16;
    /**
     * Never spin less than this (or the policy's maximum, if smaller): about one release from
     * another core (150-300 ns measured here), so that a budget that fell while two processes
     * shared a core can pay, and grow, again once they have a core each; yet little enough that
     * processes sharing a core waste almost nothing before yielding.
     */
    private static final long FLOOR_NANOS = 250;

    private final long max;
    private final long floor;
    private final long[] budget;

    SpinBudgets(int parties, long maxNanos) {
        this.max = maxNanos;
        this.floor = Math.min(maxNanos, FLOOR_NANOS);
        this.budget = new long[STRIDE * (parties + 1)];
        for (int i = 0; i < parties; i++) budget[STRIDE * (i + 1)] = maxNanos;
    }

    /** @return the spin time for {@code pid}'s next wait, in nanoseconds */
    long nanos(int pid) { return budget[STRIDE * (pid + 1)]; }

    /** The wait ended while {@code pid} was spinning: spinning pays, allow more. */
    void paid(int pid) {
        int i = STRIDE * (pid + 1);
        budget[i] = Math.min(max, 2 * budget[i]);
    }

    /** {@code pid} spun for nothing: spin less next time. */
    void wasted(int pid) {
        int i = STRIDE * (pid + 1);
        budget[i] = Math.max(floor, budget[i] >> 1);
    }
}
