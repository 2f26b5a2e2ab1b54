package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * How long one blocking {@code select} of a wait may last ({@link ProgressLoop#blockMillis}): a
 * quarter of the wait's idle time between 10 and 100 ms, so that long idle waits wake seldom, and
 * never more than a quarter of the deadline, so that the deadline is kept.
 */
class ProgressLoopTest {
    private static final long MS = 1_000_000L;

    @Test
    void aLongIdleWaitBlocksLongerAtATimeUpToAHundredMilliseconds() {
        assertEquals(10, ProgressLoop.blockMillis(0, 0), "a wait that has just blocked");
        assertEquals(10, ProgressLoop.blockMillis(40 * MS, 0));
        assertEquals(50, ProgressLoop.blockMillis(200 * MS, 0), "a quarter of its idleness");
        assertEquals(100, ProgressLoop.blockMillis(400 * MS, 0));
        assertEquals(100, ProgressLoop.blockMillis(3_600_000 * MS, 0), "at most 100 ms, however long it waited");
    }

    @Test
    void theDeadlineIsKept() {
        assertEquals(25, ProgressLoop.blockMillis(3_600_000 * MS, 100 * MS), "a quarter of a 100 ms deadline");
        assertEquals(1, ProgressLoop.blockMillis(3_600_000 * MS, 2 * MS), "at least 1 ms");
        assertEquals(50, ProgressLoop.blockMillis(200 * MS, 120_000 * MS), "a long deadline does not shorten it");
    }
}
