package org.lpf4j.tools;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine.ParseResult;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LpfCommandTest {

    @AfterEach
    void noThreadsLeft() { Cli.assertNoLpfThreads(); }

    private static <T> T subcommand(ParseResult parsed, Class<T> type) {
        assertTrue(parsed.hasSubcommand(), "a subcommand was parsed");
        return type.cast(parsed.subcommand().commandSpec().userObject());
    }

    @Test
    void runTakesItsOptionsAndLeavesEverythingAfterTheClassToTheProgram() {
        ParseResult parsed = LpfCommand.commandLine().parseArgs("run", "-p", "8", "--engine", "threads",
                "--param", "lpf.engine.threads.spin=0", "--param", "lpf.engine.threads.yield=5",
                "org.example.Prog", "--not-ours", "-p", "3", "x");
        RunCommand run = subcommand(parsed, RunCommand.class);
        assertEquals(8, run.procs);
        assertEquals("threads", run.engineOptions.engine);
        assertEquals(Map.of("lpf.engine.threads.spin", "0", "lpf.engine.threads.yield", "5"), run.engineOptions.params);
        assertEquals("org.example.Prog", run.className);
        assertEquals(List.of("--not-ours", "-p", "3", "x"), run.programArgs);
    }

    @Test
    void runDefaultsToTheMachineSizeAndNoProgramArguments() {
        RunCommand run = subcommand(LpfCommand.commandLine().parseArgs("run", "Prog"), RunCommand.class);
        assertNull(run.procs);
        assertNull(run.engineOptions.engine);
        assertTrue(run.engineOptions.params.isEmpty());
        assertEquals(List.of(), run.programArgs);
    }

    @Test
    void benchAndProbeOptions() {
        BenchCommand bench = subcommand(LpfCommand.commandLine().parseArgs("bench", "--reps", "3", "--quick",
                "--procs", "1,2"), BenchCommand.class);
        assertEquals(3, bench.reps);
        assertTrue(bench.quick);
        assertArrayEquals(new int[] {1, 2}, bench.procs);
        BenchCommand defaults = subcommand(LpfCommand.commandLine().parseArgs("bench"), BenchCommand.class);
        assertEquals(9, defaults.reps);
        assertFalse(defaults.quick);
        assertArrayEquals(new int[] {1, 2, 4, 8}, defaults.procs);
        ProbeCommand probe = subcommand(LpfCommand.commandLine().parseArgs("probe", "-p", "5"), ProbeCommand.class);
        assertEquals(5, probe.procs);
    }

    @Test
    void usageErrorsExitWithStatusTwoAndSayWhy() {
        Cli.run().expectError(2, "missing subcommand");
        Cli.run("frobnicate").expectError(2, "frobnicate");
        Cli.run("run").expectError(2, "CLASS");
        Cli.run("run", "-p", "zero", "Prog").expectError(2, "zero");
        Cli.run("run", "-p", "0", "org.lpf4j.examples.InnerProduct")
                .expectError(2, "lpf run: -p 0: the number of processes must be at least 1");
        Cli.run("bench", "--reps", "0").expectError(2, "--reps 0");
        Cli.run("bench", "--procs", "1,-2").expectError(2, "every count must be >= 1");
        Cli.run("probe", "-p", "-1").expectError(2, "-p -1");
    }

    @Test
    void helpListsTheSubcommands() {
        String help = Cli.run("--help").expect(0).out();
        for (String sub : List.of("run", "probe", "bench")) assertTrue(help.contains("  " + sub + " "), help);
        String runHelp = Cli.run("run", "--help").expect(0).out();
        for (String option : List.of("--procs", "--engine", "--param", "--class-path")) {
            assertTrue(runHelp.contains(option), runHelp);
        }
    }
}
