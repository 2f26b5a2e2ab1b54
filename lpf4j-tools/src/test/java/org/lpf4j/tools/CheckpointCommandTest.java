package org.lpf4j.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf checkpoint DIR} against a running job (a JVM of its own, no interval): the job takes
 * a checkpoint because it was asked, the command reports it committed; {@code --list} lists it;
 * a directory that does not exist is a usage error.
 */
@Timeout(180)
class CheckpointCommandTest {
    @TempDir Path dir;

    @Test
    void aRunningJobTakesTheCheckpointItIsAskedFor() throws Exception {
        Path cp = dir.resolve("cp");
        Cli[] asked = new Cli[1];
        LpfJvm job = LpfJvm.run(150, List.of(), Map.of(), proc -> {
            try {
                while (!Files.isDirectory(cp) && proc.isAlive()) Thread.sleep(20);
                Thread.sleep(300);
                asked[0] = Cli.run("checkpoint", cp.toString(), "--wait", "60");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }, "run", "-p", "2", "--checkpoint-dir", cp.toString(), "org.lpf4j.examples.Heat", "256", "40000");
        // The job runs to its end (minutes at most on 2 cores); what matters is what the command saw while it ran.
        assertTrue(asked[0] != null, job::both);
        asked[0].expect(0);
        assertTrue(asked[0].out().contains("lpf checkpoint: checkpoint 1 committed: program=Heat"), asked[0].out());
        assertTrue(job.done() && job.exitCode() == 0, job::both);
        Cli list = Cli.run("checkpoint", "--list", cp.toString()).expect(0);
        assertTrue(list.out().startsWith("1: program=Heat"), list.out());
        assertTrue(job.ghosts().isEmpty(), job.ghosts()::toString);
    }

    /**
     * A job that has ended: lpf checkpoint says so at once (not after its 60 s wait), names the
     * last complete checkpoint, and leaves no request behind for the next job.
     */
    @Test
    void anEndedJobIsSaidToHaveEndedAtOnce() {
        Path cp = dir.resolve("ended");
        Cli.run("run", "-p", "2", "--checkpoint-dir", cp.toString(), "--checkpoint-every", "1ms",
                "org.lpf4j.examples.Heat", "64", "50").expect(0);
        long start = System.nanoTime();
        Cli c = Cli.run("checkpoint", cp.toString(), "--wait", "60");
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(ProgramFailure.EXIT_CODE, c.status(), c::toString);
        assertTrue(c.err().contains("lpf checkpoint: the job that wrote into " + cp.toAbsolutePath() + " has ended (ended "),
                c.err());
        assertTrue(c.err().contains("no checkpoint taken. Its last complete checkpoint is "), c.err());
        assertTrue(seconds < 10, "said at once, not after the wait: " + seconds + " s");
        assertTrue(!Files.exists(cp.resolve(org.lpf4j.cr.CheckpointDirectory.REQUEST_FILE)), "no request left behind");
    }

    /** A job whose process 0 stopped marking it running (killed): said at once too. */
    @Test
    void aJobThatStoppedWithoutEndingIsSaidToHaveStopped() throws Exception {
        Path job = dir.resolve(org.lpf4j.cr.CheckpointDirectory.JOB_FILE);
        Files.writeString(job, "running: pid 12345 since 2026-01-01T00:00:00Z\n");
        Files.setLastModifiedTime(job, java.nio.file.attribute.FileTime.from(java.time.Instant.now().minusSeconds(60)));
        Cli c = Cli.run("checkpoint", dir.toString(), "--wait", "60");
        assertEquals(ProgramFailure.EXIT_CODE, c.status(), c::toString);
        assertTrue(c.err().contains("stopped without ending (killed, or its host lost)"), c.err());
        assertTrue(c.err().contains("It left no complete checkpoint."), c.err());
    }

    @Test
    void aMissingDirectoryIsAUsageErrorAndNoJobTimesOut() throws Exception {
        Cli.run("checkpoint", dir.resolve("none").toString()).expectError(UsageException.EXIT_CODE, "is not a directory");
        Cli c = Cli.run("checkpoint", dir.toString(), "--wait", "0.3");
        assertEquals(ProgramFailure.EXIT_CODE, c.status(), c::toString);
        assertTrue(c.err().contains("no new checkpoint was committed"), c.err());
    }
}
