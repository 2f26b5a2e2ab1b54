package org.lpf4j.tools;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.Engines;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf bench --engine E} for every installed engine that runs its own benchmark under its
 * launcher ({@link EngineProvider#launchedBenchmark()}): a real {@code lpf} JVM starts the
 * launcher for max(--procs) processes, the benchmark's rows (beside its raw baseline, with ratios)
 * come back on standard output and the exit status is 0. Bounded time, the process tree killed in
 * {@code finally}, and no process of the run (marked with a unique {@code -Dlpf.test.job=}) left.
 */
@Timeout(240)
class LaunchedBenchTest {
    @Test
    void anEngineWithItsOwnBenchmarkRunsItUnderItsLauncherAndPrintsRatios() throws Exception {
        List<EngineProvider> engines = Engines.installed().stream()
                .filter(e -> e.launchedBenchmark().isPresent() && e.launcher().isPresent() && e.query().canRun())
                .toList();
        Assumptions.assumeFalse(engines.isEmpty(), "no installed engine has a launched benchmark that can run here"
                + " (the MPI engine needs mpirun and libmpi)");
        for (EngineProvider engine : engines) {
            String marker = UUID.randomUUID().toString();
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-Xss1m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-Dlpf.test.job=" + marker, "-cp", System.getProperty("java.class.path"), LpfCommand.class.getName(),
                    "bench", "--engine", engine.name(), "--quick", "--reps", "1", "--procs", "2"));
            Process proc = new ProcessBuilder(cmd).start();
            String out, err;
            boolean done;
            try {
                CompletableFuture<String> o = drain(proc.getInputStream()), e = drain(proc.getErrorStream());
                done = proc.waitFor(180, TimeUnit.SECONDS);
                if (!done) killTree(proc);
                out = o.get(10, TimeUnit.SECONDS);
                err = e.get(10, TimeUnit.SECONDS);
            } finally {
                killTree(proc);
            }
            String both = "--- stdout\n" + out + "\n--- stderr\n" + err;
            assertTrue(done, "lpf bench --engine " + engine.name() + " did not end within 180 s\n" + both);
            assertEquals(0, proc.exitValue(), both);
            assertTrue(out.contains("p=2  empty sync"), both);
            assertTrue(out.lines().anyMatch(l -> l.startsWith("p=2") && l.contains("ratio")), "no ratio row\n" + both);
            assertFalse(out.contains("NaN"), both);
            List<String> ghosts = ghosts(marker);
            assertTrue(ghosts.isEmpty(), "processes of the run left behind: " + ghosts);
        }
    }

    private static void killTree(Process proc) {
        proc.descendants().forEach(ProcessHandle::destroyForcibly);
        proc.destroyForcibly();
    }

    /** Processes whose command line carries the marker, after giving the dying ones a moment. */
    private static List<String> ghosts(String marker) throws InterruptedException {
        List<String> left = List.of();
        for (int i = 0; i < 50; i++) {
            left = ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                    .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false))
                    .map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList();
            if (left.isEmpty()) return left;
            Thread.sleep(100);
        }
        return left;
    }

    private static CompletableFuture<String> drain(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
