package org.lpf4j.engine.threads.group;

/**
 * How long each process of a team spins before it yields, adapted per process: the budget
 * doubles (up to the policy's spin time) when a wait ends while spinning and halves when the
 * spin runs out. When two processes share a core (the scheduler put them together, or other
 * load took the other core), spinning only delays the partner it waits for; the budget then
 * drops to its floor within a few supersteps and the waiter yields soon (at p = 2 in such a
 * state a long spin cost several times a superstep without one; {@code docs/performance.md}).
 *
 * <p>A budget that has fallen cannot learn from its own waits that spinning would pay again:
 * a wait that outlasts the budget ends in the yield phase, which is not counted as evidence,
 * and the yield itself makes the waiter late by about a yield, so that its partner in turn
 * waits longer than the floor. Once both processes of a pair are at the floor (after a compute
 * imbalance, JIT compilation or a load spike), every later wait ends in a yield although both
 * have a core again (shown with a partner 20 µs behind and a 100 µs maximum in {@code
 * WaitingTest}: 0 of 100 waits ended spinning). So every {@link #PROBE_PERIOD}-th wait of a
 * process whose budget is below the maximum spins for the maximum, and if that wait ends while
 * spinning the budget returns to the maximum at once. A probe costs at most one maximal spin
 * per period where spinning really does not pay (by default 5 µs per 64 waits).
 *
 * <p>Each process's budget and counters are written only by that process, on a cache line of
 * its own. The budget never drops below {@link #FLOOR_NANOS}.
 */
public final class SpinBudgets {
    private static final int STRIDE = 16;
    /** Offsets in a process's line: budget, waits so far, and whether the current wait probes. */
    private static final int BUDGET = 0, WAITS = 1, PROBING = 2;
    /**
     * Never spin less than this (or the policy's maximum, if smaller): about one release from
     * another core ({@code docs/performance.md}), so that a budget that fell while two processes
     * shared a core can pay, and grow, again once they have a core each; yet little enough that
     * processes sharing a core waste almost nothing before yielding.
     */
    private static final long FLOOR_NANOS = 250;
    /** A process whose budget is below the maximum spins the maximum once per this many waits. */
    static final int PROBE_PERIOD = 64;

    private final long max;
    private final long floor;
    private final long[] lines;

    SpinBudgets(int parties, long maxNanos) {
        this.max = maxNanos;
        this.floor = Math.min(maxNanos, FLOOR_NANOS);
        this.lines = new long[STRIDE * (parties + 1)];
        for (int i = 0; i < parties; i++) lines[STRIDE * (i + 1) + BUDGET] = maxNanos;
    }

    /** @return the spin time for {@code pid}'s next wait, in nanoseconds (called once per wait) */
    long nanos(int pid) {
        int i = STRIDE * (pid + 1);
        long budget = lines[i + BUDGET];
        boolean probe = budget < max && ++lines[i + WAITS] % PROBE_PERIOD == 0;
        lines[i + PROBING] = probe ? 1 : 0;
        return probe ? max : budget;
    }

    /** The wait ended while {@code pid} was spinning: spinning pays, allow more (all, after a probe). */
    void paid(int pid) {
        int i = STRIDE * (pid + 1);
        lines[i + BUDGET] = lines[i + PROBING] != 0 ? max : Math.min(max, 2 * lines[i + BUDGET]);
    }

    /** {@code pid} spun for nothing: spin less next time. */
    void wasted(int pid) {
        int i = STRIDE * (pid + 1);
        lines[i + BUDGET] = Math.max(floor, lines[i + BUDGET] >> 1);
    }
}
