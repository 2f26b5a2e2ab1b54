package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How {@link SyncDeadline} tells a stopped process from a running one: its state in {@code /proc}. */
class SyncDeadlineTest {
    @Test
    void aStoppedProcessIsInStateTAndAGoneOneHasNoState() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        long pid = sleeper.pid();
        try {
            assertNotEquals('T', SyncDeadline.processState(pid));
            assertEquals(0, new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor());
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (SyncDeadline.processState(pid) != 'T' && System.nanoTime() < until) Thread.sleep(10);
            assertEquals('T', SyncDeadline.processState(pid));
        } finally {
            sleeper.destroyForcibly(); // SIGKILL ends a stopped process too
            assertTrue(sleeper.waitFor(5, TimeUnit.SECONDS));
        }
        assertEquals(0, SyncDeadline.processState(pid), "a process that is gone has no state");
    }
}
