package org.lpf4j.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.Engines;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf bench --engine E} for every installed engine that runs its own benchmark under its
 * launcher beside its raw transport ({@link EngineProvider#rawBaseline()},
 * {@link org.lpf4j.tools.bench.LaunchedBench}): a real {@code lpf} JVM starts the
 * launcher for max(--procs) processes, the benchmark's rows (beside its raw baseline, with ratios)
 * come back on standard output, its JVMs compile in the foreground ({@code -Xbatch}, which the
 * benchmark reports in its header), the exit status is 0, and no process of the run is left
 * ({@link LpfJvm}).
 */
@Timeout(240)
class LaunchedBenchTest {
    @Test
    void anEngineWithItsOwnBenchmarkRunsItUnderItsLauncherAndPrintsRatios() throws Exception {
        List<EngineProvider> engines = Engines.installed().stream()
                .filter(e -> e.rawBaseline().isPresent() && e.launcher().isPresent() && e.query().canRun())
                .toList();
        org.lpf4j.testkit.Needs.that(!engines.isEmpty(), "no installed engine with a launcher and a raw transport can run here"
                + " (the MPI engine needs mpirun and libmpi)");
        for (EngineProvider engine : engines) {
            LpfJvm r = LpfJvm.run(180, "bench", "--engine", engine.name(), "--quick", "--reps", "1", "--procs", "2");
            String out = r.out(), both = r.both();
            assertTrue(r.done(), "lpf bench --engine " + engine.name() + " did not end within 180 s\n" + both);
            assertEquals(0, r.exitCode(), both);
            assertTrue(out.contains("p=2  empty sync"), both);
            assertTrue(out.contains("(JIT in the foreground, -Xbatch)"), "the benchmark JVMs must compile in the foreground\n" + both);
            assertTrue(out.lines().anyMatch(l -> l.startsWith("p=2") && l.contains("ratio")), "no ratio row\n" + both);
            assertFalse(out.contains("NaN"), both);
            // the counts are exact: at p = 2 one round of one frame (net: the word and the bits of who sends to whom),
            // a stream of one 32-byte header after its length, a large put's own message; MPI hides its collectives' messages
            String sent = switch (engine.name()) {
                case "net" -> "p=2  sent per step by pid 0 (data+meta messages, payload+meta-data bytes): empty sync 0+1 msgs, 0+16 B;"
                        + " 8-byte put 1+1 msgs, 8+56 B; 1 MiB put 2+1 msgs, 1048576+56 B; total exchange 2+1 msgs, 32768+56 B;"
                        + " connections open 2";
                case "mpi" -> "p=2  sent per step by pid 0 (data+meta messages, payload+meta-data bytes): empty sync 0+? msgs, 0+0+? B;"
                        + " 8-byte put 1+? msgs, 8+40+? B; 1 MiB put 2+? msgs, 1048576+40+? B; total exchange 2+? msgs, 32768+40+? B;"
                        + " connections open n/a";
                default -> "p=2  sent per step by pid 0";
            };
            assertTrue(out.contains(sent), "expected: " + sent + "\n" + both);
            assertTrue(r.ghosts().isEmpty(), "processes of the run left behind: " + r.ghosts());
        }
    }
}
