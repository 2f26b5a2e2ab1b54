package org.lpf4j.tools;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Option values that cannot work are usage errors (status 2, one line naming the option and the
 * value) before anything runs: no stack trace, no benchmark that runs for minutes and then cannot
 * write its charts, and no message about restarts that were never asked for.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OptionChecksTest {
    private static final String IP = "org.lpf4j.examples.InnerProduct";

    @AfterEach
    void noThreadsLeft() { Cli.assertNoLpfThreads(); }

    @Test
    void nodesBelowOneIsAUsageError() {
        Cli.run("run", "--engine", "hybrid", "--nodes", "-1", "-p", "4", IP, "100")
                .expectError(UsageException.EXIT_CODE, "lpf run: --nodes -1: give 1 or more");
        Cli.run("run", "--engine", "hybrid", "--nodes", "0", "-p", "4", IP, "100")
                .expectError(UsageException.EXIT_CODE, "lpf run: --nodes 0: give 1 or more");
    }

    @Test
    void nodesAboveTheParameterRangeIsAUsageError() {
        Cli r = Cli.run("run", "--engine", "hybrid", "--nodes", "2000000", "-p", "4", IP, "100")
                .expectError(UsageException.EXIT_CODE, "lpf run: --nodes 2000000: ");
        assertTrue(r.err().contains("out of range"), r.err());
    }

    @Test
    void nodesWithoutProcsIsAUsageError() {
        // Without -p nothing is launched: the header said "2 JVMs" while the job ran in this one.
        Cli.run("run", "--engine", "hybrid", "--nodes", "2", IP, "100")
                .expectError(UsageException.EXIT_CODE, "lpf run: --nodes 2 needs -p N");
    }

    @Test
    void aLaunchTheLauncherRefusesIsAUsageErrorWithItsMessage() {
        // The hybrid launcher refuses more nodes than processes before it starts anything.
        Cli r = Cli.run("run", "--engine", "hybrid", "--nodes", "5", "-p", "4", IP, "100")
                .expectError(UsageException.EXIT_CODE, "--nodes 5 exceeds -p 4");
        assertFalse(r.err().contains("\tat "), r.err());
    }

    @Test
    void benchPlotIntoAFileIsRefusedBeforeMeasuring(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        Cli r = Cli.run("bench", "--quick", "--reps", "1", "--procs", "1", "--plot", file.toString())
                .expectError(UsageException.EXIT_CODE, "lpf bench: --plot " + file + ": ");
        assertFalse(r.out().contains("empty sync"), "nothing measured: " + r.out());
        Cli.run("bench", "--quick", "--reps", "1", "--procs", "1", "--plot", file.resolve("sub").toString())
                .expectError(UsageException.EXIT_CODE, "cannot create the directory " + file.resolve("sub"));
    }

    @Test
    void probePlotUnderAFileIsRefusedBeforeMeasuring(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        Cli r = Cli.run("probe", "--param", "lpf.probe.cache=off", "--plot", file.resolve("probe").toString())
                .expectError(UsageException.EXIT_CODE, "lpf probe: --plot " + file.resolve("probe") + ": ");
        assertFalse(r.out().contains("msg size"), "nothing measured: " + r.out());
    }

    @Test
    void benchOnAnEngineThatOnlyItsLauncherGrowsDoesNotPointAtAParameterThatIsNotThere() {
        // The net engine runs one process per JVM outside its launcher, and no --param changes that here.
        Cli r = Cli.run("bench", "--engine", "net", "--quick", "--reps", "1", "--procs", "2")
                .expectError(UsageException.EXIT_CODE, "lpf bench: the net engine runs at most 1 processes in this JVM");
        assertFalse(r.err().contains("--param (lpf info"), r.err());
        assertTrue(r.err().contains("lpf run --engine net -p 2"), r.err());
    }

    @Test
    void aFailureWithoutRestartsSaysNothingAboutRestarts(@TempDir Path dir) {
        Cli r = Cli.run("run", "-p", "2", "--checkpoint-dir", dir.toString(), RunCommandTest.Failing.class.getName()).expect(1);
        assertTrue(r.err().contains("boom at pid 1"), r.err());
        assertFalse(r.out().contains("no restart left"), r.out());
        assertFalse(r.out().contains("the section failed"), r.out());
    }

    @Test
    void aNegativeCheckpointWaitIsAUsageError(@TempDir Path dir) {
        // It was taken as 0 (do not wait) without a word.
        Cli.run("checkpoint", "--wait", "-1", dir.toString()).expectError(UsageException.EXIT_CODE, "lpf checkpoint: --wait -1.0: give 0 or more seconds");
    }

    @Test
    void anUnknownEngineIsNamedAsTheCommandLinesChoice() {
        Cli r = Cli.run("run", "--engine", "bogus", "-p", "2", IP, "100")
                .expectError(UsageException.EXIT_CODE, "lpf run: lpf.engine=bogus (from the command line): no engine module named 'bogus'");
        assertFalse(r.err().contains("programmatic"), r.err());
    }

    @Test
    void aRefusedRunMakesNoDirectoryOfItsOptions(@TempDir Path dir) {
        Path profile = dir.resolve("profile"), checkpoints = dir.resolve("a/b/checkpoints");
        Cli.run("run", "--engine", "bogus", "--profile", profile.toString(), "--checkpoint-dir", checkpoints.toString(), IP, "100")
                .expectError(UsageException.EXIT_CODE, "no engine module named 'bogus'");
        Cli.run("run", "--profile", profile.toString(), "--checkpoint-dir", checkpoints.toString(), "org.lpf4j.examples.NoSuchProgram")
                .expectError(UsageException.EXIT_CODE, "org.lpf4j.examples.NoSuchProgram");
        Cli.run("run", "--checkpoint-dir", checkpoints.toString(), "--restarts", "1", LaunchedRunTest.MainOnEveryRank.class.getName())
                .expectError(UsageException.EXIT_CODE, "lpf run: --restarts needs an org.lpf4j.Spmd program");
        assertFalse(Files.exists(profile), "--profile's directory was made for a refused run");
        assertFalse(Files.exists(dir.resolve("a")), "--checkpoint-dir's directories were made for a refused run");
    }

    @Test
    void aCheckpointDirThatCannotBeMadeIsAUsageError(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        Cli.run("run", "--checkpoint-dir", file.resolve("sub").toString(), IP, "100")
                .expectError(UsageException.EXIT_CODE, "lpf run: --checkpoint-dir " + file.resolve("sub") + ": " + file + " is not a directory");
    }
}
