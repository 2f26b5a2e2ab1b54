package org.lpf4j.engine.mpi;

import org.lpf4j.engine.mpi.testing.MpiJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failures that are not exceptions: a rank killed with SIGKILL in the middle of a section ends the
 * whole job within 5 seconds, with the launcher's message naming the rank, and leaves nothing
 * behind; a rank that runs out of heap fails the section (exec throws FatalException naming it).
 */
class FaultTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final Pattern KILLING = Pattern.compile("KILLING rank (\\d+) pid (\\d+) at (\\d+)");

    @Test
    void aKilledRankEndsTheOpenMpiJobQuickly() {
        killed(MpiJob.openMpi(), "rank 3");
    }

    @Test
    @EnabledIfSystemProperty(named = "lpf.test.long", matches = "true")
    void aKilledRankEndsTheMpichJobQuickly() {
        // Hydra reports "Killed (signal 9)" but names some process of the job by its OS pid, not
        // necessarily the killed one, and no rank: the rank is named only by Open MPI.
        killed(MpiJob.mpich(), "Killed (signal 9)");
    }

    private static void killed(MpiJob job, String naming) {
        long[] end = new long[1];
        MpiJob.Result r = job.run(4, TIMEOUT, FaultMain.class, "kill");
        end[0] = System.currentTimeMillis();
        assertFalse(r.timedOut(), r::both);
        Matcher m = KILLING.matcher(r.out());
        assertTrue(m.find(), r::both);
        long took = end[0] - Long.parseLong(m.group(3));
        String name = naming.formatted(m.group(2));
        assertTrue(took < 5_000, () -> "the job ended " + took + " ms after the kill\n" + r.both());
        assertNotEquals(0, r.exitCode(), r::both);
        assertTrue((r.out() + r.err()).contains(name), () -> "the launcher names the dead rank (" + name + "): " + r.both());
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    @Test
    void aRankOutOfHeapFailsTheSection() {
        MpiJob.Result r = MpiJob.openMpi().jvm("-Xmx64m").run(3, TIMEOUT, FaultMain.class, "oom");
        assertFalse(r.timedOut(), r::both);
        assertTrue(r.out().contains("FATAL exec(p=3) failed: pid 2 threw"), r::both);
        assertTrue(r.out().contains("OutOfMemoryError"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }
}
