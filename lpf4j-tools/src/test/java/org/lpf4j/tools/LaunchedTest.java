package org.lpf4j.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.spi.ProcessLauncher;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf run} delegated to a launcher: the command each process runs is this {@code lpf run}
 * without {@code -p} and with {@code --launched} (no header line: the launching side printed it),
 * and the launcher's exit status is the run's. The launcher here starts one real JVM (the command
 * of one process, as a launcher with a single process would).
 */
@Timeout(120)
class LaunchedTest {
    /**
     * A launcher that runs the per-process command once and remembers what it was asked; the
     * process's output goes to {@code output} (a launcher's processes inherit lpf's standard
     * streams, which in a test JVM are the test framework's channel).
     */
    private static final class OneJvm implements ProcessLauncher {
        ProcessLauncher.Launch asked;
        private final Path output;

        OneJvm(Path output) { this.output = output; }

        @Override
        public List<String> command(Launch launch) {
            asked = launch;
            List<String> line = new ArrayList<>(List.of("sh", "-c", "exec \"$0\" \"$@\" > '" + output + "' 2>&1"));
            line.addAll(launch.javaCommandLine());
            return line;
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return "(no output: " + e + ")";
        }
    }

    private static RunCommand parsed(String... args) {
        RunCommand run = new RunCommand();
        new CommandLine(run).parseArgs(args);
        return run;
    }

    @Test
    void eachLaunchedProcessRunsTheSameCommandWithoutProcs() {
        RunCommand run = parsed("-p", "3", "--debug", "--engine", "threads", "--param", "lpf.debug=false",
                "org.lpf4j.examples.InnerProduct", "100");
        ProcessLauncher.Launch launch = run.launch(3);
        assertEquals(3, launch.processes());
        assertEquals(LpfCommand.class.getName(), launch.mainClass());
        assertEquals(List.of("run", "--launched", "--engine", "threads", "--param", "lpf.debug=false", "--debug",
                "org.lpf4j.examples.InnerProduct", "100"), launch.args());
        assertFalse(launch.args().contains("-p"));
    }

    @Test
    void theLaunchersExitStatusAndOutputAreTheRuns(@TempDir Path dir) throws Exception {
        Path output = dir.resolve("out.txt");
        OneJvm launcher = new OneJvm(output);
        StringWriter sink = new StringWriter();
        int ok = Launched.run(launcher, parsed("-p", "2", "org.lpf4j.examples.InnerProduct", "100").launch(2),
                new PrintWriter(sink));
        assertEquals(0, ok, () -> read(output));
        assertTrue(read(output).contains("inner product of two vectors of length 100") && read(output).contains("(sequential check: equal)"),
                () -> read(output));
        int bad = Launched.run(launcher, parsed("-p", "2", "org.lpf4j.examples.NoSuchProgram").launch(2),
                new PrintWriter(sink));
        assertEquals(UsageException.EXIT_CODE, bad, () -> read(output));
        assertTrue(read(output).contains("org.lpf4j.examples.NoSuchProgram"), () -> read(output));
        List<ProcessHandle> left = new ArrayList<>(ProcessHandle.current().descendants().toList());
        left.removeIf(h -> !h.isAlive());
        assertTrue(left.isEmpty(), "processes left behind: " + left);
    }
}
