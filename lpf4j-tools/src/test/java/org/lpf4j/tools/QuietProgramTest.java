package org.lpf4j.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program gets no log line unless something is wrong for it: a Collectives object probes the
 * machine, and a fit that failed its checks (likely here: 4 processes on a small machine with the
 * smallest probe budget) is reported by {@code lpf probe}, not by every program. A real JVM, so
 * that the probe really measures (the cache of this JVM may already hold a fit) and its standard
 * error is the program's.
 */
@Timeout(90)
class QuietProgramTest {
    @Test
    void aProgramWithCollectivesPrintsNoWarning() throws Exception {
        LpfJvm r = LpfJvm.run(60, "run", "-p", "4", "--param", "lpf.engine.threads.probeMillis=10",
                OneAllreduce.class.getName());
        assertTrue(r.done(), r.both());
        assertEquals(0, r.exitCode(), r.both());
        assertTrue(r.out().contains("allreduce of 4 ones: 4.0"), r.both());
        assertFalse(r.err().contains("WARNING"), r.both());
        assertTrue(r.ghosts().isEmpty(), "processes of the run left behind: " + r.ghosts());
    }
}
