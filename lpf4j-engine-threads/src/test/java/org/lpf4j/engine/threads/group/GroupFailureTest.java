package org.lpf4j.engine.threads.group;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.FatalException;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each rule {@link GroupFailure} states, one test each. */
@Timeout(60)
class GroupFailureTest {
    private final AtomicInteger wakes = new AtomicInteger();
    private final GroupFailure failure = new GroupFailure(wakes::incrementAndGet);

    private FatalException outcome() {
        return failure.outcome((reason, cause) -> new FatalException("exec failed: " + reason, cause));
    }

    @Test
    void aGroupThatNeverFailedHasNoReasonAndNoOutcome() {
        assertFalse(failure.failed());
        assertNull(failure.reason());
        assertNull(outcome());
        assertEquals(0, wakes.get());
    }

    @Test
    void theFirstReasonWins() {
        failure.fail("pid 1 returned early", null);
        failure.fail("pid 2 threw", new IllegalStateException("later"));
        assertTrue(failure.failed());
        assertEquals("pid 1 returned early", failure.reason());
        assertEquals("exec failed: pid 1 returned early", outcome().getMessage());
    }

    @Test
    void everyFailWakesEveryWaiter() {
        failure.fail("first", null);
        failure.fail("second", null);
        assertEquals(2, wakes.get(), "a later fail (with a cause for the outcome) wakes too");
    }

    @Test
    void theFirstCauseIsTheCauseAndEveryOtherDistinctOneIsSuppressedOnceInOrder() {
        Throwable x = new IllegalStateException("x"), y = new IllegalArgumentException("y"), z = new Error("z");
        failure.fail("a", null);
        failure.fail("b", x);
        failure.fail("c", y);
        failure.fail("d", z);
        failure.fail("e", y);
        failure.fail("f", x);
        FatalException e = outcome();
        assertEquals("exec failed: a", e.getMessage());
        assertSame(x, e.getCause());
        assertArrayEquals(new Throwable[] {y, z}, e.getSuppressed());
    }

    @Test
    void followOnsAreNoCauses() {
        failure.fail("pid 0 threw", null);
        FatalException followOn = failure.followOn("pid 1 of 2");
        assertTrue(failure.isFollowOn(followOn));
        failure.fail("later", followOn);
        failure.processThrew("pid 1", followOn);
        assertNull(outcome().getCause(), "a follow-on passed on is not a cause");
        assertEquals(0, outcome().getSuppressed().length);
        Throwable real = new IllegalStateException("real");
        failure.fail("later still", real);
        assertSame(real, outcome().getCause(), "a real cause after a follow-on is the first cause");
    }

    @Test
    void followOnsAreRecognisedByIdentityNotByMessage() {
        failure.fail("why", null);
        FatalException followOn = failure.followOn("pid 1 of 2");
        FatalException lookalike = new FatalException(followOn.getMessage(), null);
        assertFalse(failure.isFollowOn(lookalike));
        failure.fail("again", lookalike);
        assertSame(lookalike, outcome().getCause());
    }

    @Test
    void aFollowOnIsAPlainFatalExceptionNamingTheProcessAndTheReason() {
        failure.fail("pid 3 threw java.lang.IllegalStateException: boom", null);
        FatalException e = failure.followOn("pid 1 of 4");
        assertSame(FatalException.class, e.getClass(), "no engine class in the program's stack trace");
        assertEquals("pid 1 of 4: the SPMD section is in the failure state: pid 3 threw java.lang.IllegalStateException: boom",
                e.getMessage());
        assertNull(e.getCause());
    }

    @Test
    void aProcessThatThrowsIsNamedAndItsExceptionIsTheCause() {
        Throwable boom = new IllegalStateException("boom");
        failure.processThrew("pid 3 (node 1, thread 1)", boom);
        assertEquals("pid 3 (node 1, thread 1) threw java.lang.IllegalStateException: boom", failure.reason());
        assertSame(boom, outcome().getCause());
    }

    @Test
    void readingTheStateWhileWaitingAllocatesNothing() {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        failure.fail("why", null);
        long least = Long.MAX_VALUE, sum = 0;
        for (int window = 0; window < 4; window++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                if (failure.failed()) sum += failure.reason().length();
            }
            long bytes = mx.getCurrentThreadAllocatedBytes() - before;
            if (window > 0) least = Math.min(least, bytes);
        }
        assertTrue(sum > 0);
        assertTrue(least < 1024, least + " bytes allocated by 100 000 reads");
    }
}
