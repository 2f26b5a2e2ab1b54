package org.lpf4j.engine.mpi;

import org.lpf4j.testkit.MpiJob;
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
 * whole job within 5 seconds, with a message naming the rank (its {@link RankGuard}'s, under both
 * launchers; Open MPI's mpirun names it too), and leaves nothing behind; a rank that runs out of
 * heap fails the section within 5 seconds (exec throws FatalException naming it).
 */
class FaultTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final Pattern KILLING = Pattern.compile("KILLING rank (\\d+) pid (\\d+) at (\\d+)");
    private static final Pattern EXHAUSTING = Pattern.compile("EXHAUSTING rank (\\d+) at (\\d+)");

    @Test
    void aKilledRankEndsTheOpenMpiJobQuicklyNamingIt() {
        MpiJob.Result r = killed(MpiJob.openMpi());
        assertTrue(r.err().contains("rank 3"), () -> "mpirun names the dead rank too: " + r.both());
    }

    @Test
    void aKilledRankEndsTheMpichJobQuicklyNamingIt() {
        // Hydra itself reports "Killed (signal 9)" and the OS pid of some process of the job, not
        // necessarily the killed one, and no rank: the name comes from the rank's guard.
        MpiJob.Result r = killed(MpiJob.mpich());
        assertTrue((r.out() + r.err()).contains("Killed (signal 9)"), r::both);
    }

    @Test
    @EnabledIfSystemProperty(named = "lpf.test.long", matches = "true")
    void aKilledRankIsNamedUnderHydraStartedByHand() {
        // No report directory: the winning guard prints on standard error, which Hydra forwards
        // only if it still reads (best effort; lpf run's wrapper is the sure way).
        MpiJob.Result r = killed(MpiJob.mpich().byHand());
        assertTrue((r.out() + r.err()).contains("Killed (signal 9)"), r::both);
        // The dead job's directory and semaphore set wait for the next job's first rank on this host.
        RankGuard.removeStale(java.nio.file.Path.of(System.getProperty("java.io.tmpdir")));
    }

    private static MpiJob.Result killed(MpiJob job) {
        java.util.Set<String> setsBefore = MpiJob.semaphoreSets();
        MpiJob.Result r = job.run(4, TIMEOUT, FaultMain.class, "kill");
        long end = System.currentTimeMillis();
        assertFalse(r.timedOut(), r::both);
        Matcher m = KILLING.matcher(r.out());
        assertTrue(m.find(), r::both);
        long took = end - Long.parseLong(m.group(3));
        assertTrue(took < 5_000, () -> "the job ended " + took + " ms after the kill\n" + r.both());
        assertNotEquals(0, r.exitCode(), r::both);
        String named = "lpf4j mpi: rank " + m.group(1) + " (pid " + m.group(2) + " on host ";
        String both = r.out() + r.err(); // Hydra forwards the ranks' standard error to its standard output
        assertTrue(both.contains(named), () -> "the dead rank is named (" + named + "...): " + r.both());
        assertTrue(both.lines().filter(l -> l.startsWith("lpf4j mpi: rank ")).count() == 1,
                () -> "only the dead rank is named, once: " + r.both());
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
        if (!job.isByHand()) {
            java.util.Set<String> left = MpiJob.semaphoreSets();
            left.removeAll(setsBefore);
            assertTrue(left.isEmpty(), () -> "semaphore sets left behind (lpf run's wrapper removes the job's): " + left);
        }
        return r;
    }

    /**
     * A job killed from outside (the harness's timeout kills every rank at once) records no death,
     * and no wrapper is left to remove its death latch: {@link MpiJob} removes the orphaned set.
     */
    @Test
    void aJobKilledFromOutsideLeavesNoSemaphoreSet() {
        java.util.Set<String> setsBefore = MpiJob.semaphoreSets();
        MpiJob.Result r = MpiJob.openMpi().run(2, java.time.Duration.ofSeconds(8), GuardedMain.class, "wait");
        assertTrue(r.timedOut(), r::both);
        assertTrue(r.out().contains("ready"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
        java.util.Set<String> left = MpiJob.semaphoreSets();
        left.removeAll(setsBefore);
        assertTrue(left.isEmpty(), () -> "semaphore sets left behind: " + left);
    }

    @Test
    void aRankOutOfHeapFailsTheSectionQuicklyNamingIt() {
        MpiJob.Result r = MpiJob.openMpi().jvm("-Xmx64m").run(3, TIMEOUT, FaultMain.class, "oom", "1");
        long end = System.currentTimeMillis();
        assertFalse(r.timedOut(), r::both);
        Matcher m = EXHAUSTING.matcher(r.out());
        assertTrue(m.find(), r::both);
        long took = end - Long.parseLong(m.group(2));
        assertTrue(took < 5_000, () -> "the job ended " + took + " ms after rank 1 began to exhaust its heap\n" + r.both());
        assertTrue(r.out().contains("FATAL exec(p=3) failed: pid 1 threw"), r::both);
        assertTrue(r.out().contains("OutOfMemoryError"), r::both);
        assertFalse(r.err().contains("lpf4j mpi: rank "), () -> "an exception is not a death: " + r.both());
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }
}
