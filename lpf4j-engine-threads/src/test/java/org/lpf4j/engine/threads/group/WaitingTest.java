package org.lpf4j.engine.threads.group;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.FatalException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The adaptive spin of {@link Waiting}, driven without a second thread: the "partner" arrives
 * a fixed time after the wait starts (the release condition reads the clock), so the test
 * is exact about which phase ends each wait whatever the machine's load (a release is polled
 * again after any preemption while spinning, so a descheduled waiter still ends spinning).
 */
@Timeout(60)
class WaitingTest {

    /**
     * A group that never fails, whose waiters spin up to 100 µs: long enough against the cost
     * of a poll here (the release reads the clock, 20-300 ns) for the spin floor (250 ns, i.e.
     * at least 4 polls) to be far below the partner's delay below (20 µs).
     */
    private static final class Group implements Participants {
        private final ThreadsPolicy policy;

        Group() { this(100_000); }

        Group(long spinNanos) { policy = ThreadsPolicy.forProcesses(1, spinNanos, 1_000_000); }

        @Override public ThreadsPolicy policy() { return policy; }

        @Override public String abandonment(int pid, long round) { return null; }

        @Override public void fail(String reason, Throwable cause) { throw new AssertionError(reason, cause); }

        @Override public FatalException fatal(int pid) { return new FatalException("unexpected", null); }

        @Override public Thread thread(int pid) { return null; }
    }

    private static final Waiting.Release ARRIVED = (deadline, unused) -> System.nanoTime() - deadline >= 0;

    /** Waits {@code n} times for a partner that arrives {@code nanos} after each wait starts. */
    private static void waits(Waiting w, int n, long nanos) {
        for (int i = 0; i < n; i++) w.await(ARRIVED, 0, 1, System.nanoTime() + nanos, 0);
    }

    /**
     * After a slow phase (a partner 2 ms late, twelve times: every spin wasted, so the budget
     * falls to its floor), a partner that is back in step but 20 µs behind (far more than the
     * floor, far less than the policy's 100 µs) must again be caught while spinning. Without
     * probing, every such wait ends in the yield phase and the budget never grows again: the
     * slow mode.
     */
    @Test
    void spinningRecoversAfterASlowPhase() {
        Waiting w = new Waiting(new Group(), 1);
        waits(w, 100, 20_000);
        long spun = w.ended(0, Waiting.SPINNING);
        assertTrue(spun >= 50, "in step from the start, only " + spun + " of 100 waits ended spinning");
        waits(w, 12, 2_000_000);
        waits(w, 300, 20_000); // recovery window
        long before = w.ended(0, Waiting.SPINNING);
        waits(w, 100, 20_000);
        long recovered = w.ended(0, Waiting.SPINNING) - before;
        assertTrue(recovered >= 50, "after a slow phase, only " + recovered + " of 100 waits for a partner 20 µs"
                + " behind ended spinning (yielding " + w.ended(0, Waiting.YIELDING) + ", parked "
                + w.ended(0, Waiting.PARKED) + " in all)");
    }

    private static final Waiting.Release ALREADY = (a, b) -> true;

    /** A waiter that knows whoever it waits for cannot be running yields at once: no wait ends spinning. */
    @Test
    void aWaiterToldThatSpinningCannotPayDoesNotSpin() {
        Waiting w = new Waiting(new Group(), 1);
        for (int i = 0; i < 100; i++) w.await(ALREADY, 0, 1, 0, 0, false);
        assertEquals(0, w.ended(0, Waiting.SPINNING));
        assertEquals(100, w.ended(0, Waiting.YIELDING));
        for (int i = 0; i < 100; i++) w.await(ALREADY, 0, 1, 0, 0, true);
        assertEquals(100, w.ended(0, Waiting.SPINNING), "the same waits, spinning allowed");
    }

    /** A spin budget of zero means no spin at all, not one batch of polls (each pause costs up to 40 ns). */
    @Test
    void aZeroSpinBudgetNeverSpins() {
        Waiting w = new Waiting(new Group(0), 1);
        for (int i = 0; i < 200; i++) w.await(ALREADY, 0, 1, 0, 0);
        assertEquals(0, w.ended(0, Waiting.SPINNING), "probes included: the policy's maximum is 0");
        assertEquals(200, w.ended(0, Waiting.YIELDING));
    }

    /**
     * The spin is bounded by its budget, not by a batch of polls: with a 1 ns budget a wait for
     * a release that never comes while spinning polls at most one batch (4), far from 16.
     */
    @Test
    void theSpinStopsWithinAFewPollsOfItsBudget() {
        Waiting w = new Waiting(new Group(1), 1);
        int[] polls = new int[1];
        Waiting.Release sixthPoll = (a, b) -> ++polls[0] >= 6;
        for (int i = 0; i < 50; i++) {
            polls[0] = 0;
            w.await(sixthPoll, 0, 1, 0, 0);
        }
        assertEquals(0, w.ended(0, Waiting.SPINNING), "every spin ended within 4 polls, before the release at the 6th");
    }
}
