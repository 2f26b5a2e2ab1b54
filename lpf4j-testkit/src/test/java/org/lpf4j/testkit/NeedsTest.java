package org.lpf4j.testkit;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one rule for a test that lacks what the machine should have: skipped here, failed under CI. */
class NeedsTest {
    @Test
    void withoutCiTheTestIsSkippedSayingWhy() {
        TestAbortedException e = assertThrows(TestAbortedException.class, () -> Needs.missing("no mpirun", false));
        assertTrue(e.getMessage().contains("no mpirun"), e.getMessage());
    }

    @Test
    void underCiTheTestFailsSayingWhy() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> Needs.missing("no mpirun", true));
        assertTrue(e.getMessage().contains("CI=true") && e.getMessage().contains("no mpirun"), e.getMessage());
    }

    @Test
    void whatIsThereSkipsNothing() {
        Needs.that(true, "never said");
        Needs.that(true, () -> { throw new AssertionError("the message is made only when something is missing"); });
    }
}
