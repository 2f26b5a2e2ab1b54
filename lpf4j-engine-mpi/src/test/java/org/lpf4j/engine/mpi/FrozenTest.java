package org.lpf4j.engine.mpi;

import org.lpf4j.testkit.MpiJob;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sync deadline ({@code lpf.engine.mpi.syncTimeout}): a rank stopped with {@code kill -STOP}
 * in the middle of a put + sync loop ends the job soon after the deadline, under both launchers,
 * with a {@code FatalException} that names the rank as stopped by a signal (not as "returned
 * early"), and leaves no process behind; a rank that computes longer than the deadline is named
 * as late; without a deadline a slow rank fails nothing. A rank stopped between two sections is
 * named when the next one starts, whether that start splits the job or not, instead of leaving
 * rank 0 in {@code MPI_Comm_dup} for good.
 */
class FrozenTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern STOPPING = Pattern.compile("STOPPING rank (\\d+) pid (\\d+) at (\\d+)");
    private static final Pattern LEAVING = Pattern.compile("LEAVING rank \\d+ at (\\d+)");
    private static final Pattern SLOW = Pattern.compile("SLOW rank (\\d+) at (\\d+)");
    private static final int DEADLINE = 2_000;

    @Test
    void aStoppedRankEndsTheOpenMpiJobNamingIt() {
        MpiJob.Result r = stopped(MpiJob.openMpi(), 3, 1);
        assertTrue(r.out().contains("FATAL exec(p=3) failed: pid 1 of 3 did not reach sync "), r::both);
    }

    @Test
    void aStoppedRankEndsTheMpichJobNamingIt() {
        MpiJob.Result r = stopped(MpiJob.mpich(), 4, 3);
        assertTrue(r.out().contains("FATAL exec(p=4) failed: pid 3 of 4 did not reach sync "), r::both);
    }

    @Test
    void aStoppedRankZeroIsNamedByTheLowestRankThatArrived() {
        MpiJob.Result r = stopped(MpiJob.openMpi(), 2, 0);
        assertTrue(r.err().contains("lpf4j mpi: rank 1: the section failed: pid 0 of 2 did not reach sync "), r::both);
    }

    @Test
    void aRankStoppedBetweenSectionsIsNamedWhenTheNextStarts() {
        MpiJob.Result r = stopped(MpiJob.openMpi(), 3, 1, "between", "1", "3");
        assertTrue(r.out().contains("FATAL exec(p=3) failed: pid 1 of 3 did not join exec(p=3) within " + DEADLINE
                + " ms while pid 0 waited there"), r::both);
    }

    @Test
    void aRankStoppedBetweenSectionsIsNamedWhenTheNextSplitsTheJob() {
        // The second section has 3 of the 4 ranks: making its communicator needs every rank, the stopped one too.
        MpiJob.Result r = stopped(MpiJob.mpich(), 4, 3, "between", "3", "3");
        assertTrue(r.out().contains("FATAL exec(p=3) failed: pid 3 of 4 did not join exec(p=3) within " + DEADLINE
                + " ms while pid 0 waited there"), r::both);
    }

    @Test
    void aRankStoppedWhileTheOthersProbeIsNamed() {
        // probe() makes a section of the section's processes: a duplicate of its communicator, under the deadline.
        MpiJob.Result r = stopped(MpiJob.openMpi(), 3, 2, "probe", "2", "3");
        assertTrue(r.out().contains("pid 2 of 3 did not join probe within " + DEADLINE + " ms"), r::both);
    }

    @Test
    void aRankThatTakesLongerThanTheDeadlineToUnpackTheFunctionIsNotNamed() {
        // Unpacking the function is the engine's work, not the program's: the rank answers the start's census meanwhile.
        MpiJob.Result r = MpiJob.openMpi().jvm("-Dlpf.engine.mpi.syncTimeout=500").run(3, TIMEOUT, FrozenMain.class, "unpack", "3000");
        assertFalse(r.timedOut(), r::both);
        assertTrue(r.out().contains("NO FAILURE"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    @Test
    void aSectionOfOneProcessThatLeavesMidwayAbortsNothing() {
        // Nobody waits for it: its error reaches its caller, the job goes on.
        MpiJob.Result r = MpiJob.openMpi().run(2, TIMEOUT, FrozenMain.class, "alone", "0");
        assertFalse(r.timedOut(), r::both);
        assertTrue(r.out().contains("LEFT ALONE") && r.out().contains("NO FAILURE"), r::both);
        assertFalse(r.err().contains("MPI_Abort"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    @Test
    void aRankThatLeavesASyncMidwayFailsTheOthersAtOnceUnderTheDeadline() {
        // The deadline is long: the others must not wait for it, the leaving rank tells them.
        MpiJob.Result r = MpiJob.openMpi().jvm("-Dlpf.engine.mpi.syncTimeout=60000").run(3, TIMEOUT, FrozenMain.class, "leave", "1");
        long end = System.currentTimeMillis();
        assertFalse(r.timedOut(), r::both);
        Matcher m = LEAVING.matcher(r.out());
        assertTrue(m.find(), r::both);
        long took = end - Long.parseLong(m.group(1));
        assertTrue(took < 10_000, () -> "the job ended " + took + " ms after rank 1 left\n" + r.both());
        assertTrue(r.out().contains("FATAL exec(p=3) failed: ") && r.out().contains("pid 1 left superstep 7 midway: "
                + "java.lang.OutOfMemoryError: Cannot reserve 1048576 bytes of direct buffer memory (injected for a test)"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    @Test
    void withoutADeadlineARankThatLeavesASyncMidwayAbortsTheJob() {
        MpiJob.Result r = MpiJob.mpich().run(3, TIMEOUT, FrozenMain.class, "leave", "2");
        assertFalse(r.timedOut(), r::both);
        assertNotEquals(0, r.exitCode(), r::both);
        assertTrue(r.err().contains("lpf4j mpi: rank 2 of a section of 3: pid 2 left superstep 7 midway: java.lang.OutOfMemoryError: "), r::both);
        assertTrue(r.err().contains("so the job is aborted (MPI_Abort)"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    @Test
    void aRankComputingLongerThanTheDeadlineIsNamedAsLate() {
        MpiJob.Result r = MpiJob.openMpi().jvm("-Dlpf.engine.mpi.syncTimeout=500").run(2, TIMEOUT, FrozenMain.class, "slow", "1");
        long end = System.currentTimeMillis();
        assertFalse(r.timedOut(), r::both);
        Matcher m = SLOW.matcher(r.out());
        assertTrue(m.find(), r::both);
        long took = end - Long.parseLong(m.group(2));
        assertTrue(took < 500 + 6_000, () -> "the job ended " + took + " ms after rank 1 began to compute\n" + r.both());
        assertTrue(r.out().contains("FATAL exec(p=2) failed: pid 1 of 2 did not reach sync 22 within 500 ms while pid 0 waited"
                + " there (lpf.engine.mpi.syncTimeout=500); pid 1 (process id "), r::both);
        assertTrue(r.out().contains(") did not arrive within 500 ms (state "), r::both);
        assertFalse(r.out().contains("stopped by a signal"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    @Test
    void withoutADeadlineASlowRankFailsNothing() {
        MpiJob.Result r = MpiJob.openMpi().run(2, TIMEOUT, FrozenMain.class, "slow", "1");
        assertFalse(r.timedOut(), r::both);
        assertTrue(r.out().contains("NO FAILURE"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    @Test
    void aGenerousDeadlineLetsASlowRankBe() {
        MpiJob.Result r = MpiJob.mpich().jvm("-Dlpf.engine.mpi.syncTimeout=10000").run(3, TIMEOUT, FrozenMain.class, "slow", "2");
        assertFalse(r.timedOut(), r::both);
        assertTrue(r.out().contains("NO FAILURE"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    /** Runs the put + sync loop on {@code p} ranks with the deadline; rank {@code victim} stops itself. */
    static MpiJob.Result stopped(MpiJob job, int p, int victim) {
        return stopped(job, p, victim, "stop", Integer.toString(victim));
    }

    /** Runs {@link FrozenMain} with {@code mainArgs} on {@code p} ranks with the deadline; rank {@code victim} stops itself. */
    static MpiJob.Result stopped(MpiJob job, int p, int victim, String... mainArgs) {
        long[] stoppedPid = {-1};
        java.util.Set<String> setsBefore = MpiJob.semaphoreSets();
        try {
            MpiJob.Result r = job.jvm("-Dlpf.engine.mpi.syncTimeout=" + DEADLINE).run(p, TIMEOUT, FrozenMain.class, mainArgs);
            long end = System.currentTimeMillis();
            assertFalse(r.timedOut(), r::both);
            Matcher m = STOPPING.matcher(r.out());
            assertTrue(m.find(), r::both);
            stoppedPid[0] = Long.parseLong(m.group(2));
            long took = end - Long.parseLong(m.group(3));
            assertTrue(took < DEADLINE + 8_000, () -> "the job ended " + took + " ms after the stop\n" + r.both());
            assertNotEquals(0, r.exitCode(), () -> "a job that lost a rank fails: " + r.both());
            String both = r.out() + r.err();
            String named = "pid " + victim + " (process id " + m.group(2) + " on host ";
            assertTrue(both.contains(named), () -> "the stopped rank is named (" + named + "...): " + r.both());
            assertTrue(both.contains("is stopped by a signal (state T), e.g. kill -STOP"), r::both);
            assertTrue(both.contains("(lpf.engine.mpi.syncTimeout=" + DEADLINE + ")"), r::both);
            assertFalse(both.contains("returned early"), r::both);
            assertFalse(both.contains("died while the job was running"), () -> "the launcher's kill of the stopped rank is"
                    + " not reported as a death: " + r.both());
            assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
            // Other jobs on the machine make sets too: only those no live process uses are left behind.
            java.util.Set<String> left = MpiJob.orphanedSetsSince(setsBefore);
            assertTrue(left.isEmpty(), () -> "semaphore sets left behind: " + left);
            return r;
        } finally {
            // MpiJob kills the job's processes; the stopped JVM is SIGKILLed here too, in case.
            if (stoppedPid[0] > 0) ProcessHandle.of(stoppedPid[0]).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
