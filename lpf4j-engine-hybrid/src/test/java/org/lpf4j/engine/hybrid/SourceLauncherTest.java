package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lpf4j.testkit.MpiJob;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program started in every rank with the Java source launcher, as a user tries a one-file
 * program: its SPMD lambda and its own {@code Reducer} lambda exist only in the launcher's
 * in-memory class loader, yet cross JVMs on the MPI engine (the SPMD function at exec, the
 * operator in combining puts) and between the hybrid engine's nodes. 2 and 3 JVMs each.
 */
@Timeout(600)
class SourceLauncherTest {
    @ParameterizedTest(name = "{0} engine, {1} JVMs x {2} threads")
    @CsvSource({"mpi, 2, 1", "mpi, 3, 1", "hybrid, 2, 2", "hybrid, 3, 2"})
    void aSourceLaunchedProgramsOwnReducerCrossesJvms(String engine, int jvms, int threads) throws URISyntaxException {
        Path source = Path.of(Objects.requireNonNull(getClass().getResource("/source-launched/SourceLaunchedAllreduce.java")).toURI());
        int p = jvms * threads;
        MpiJob job = MpiJob.openMpi().jvm("-Dlpf.engine=" + engine, "-Dlpf.engine." + engine + ".probeMillis=30");
        if (engine.equals("hybrid")) job.jvm("-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=" + threads);
        MpiJob.Result r = job.run(jvms, Duration.ofMinutes(3), source.toString(), Integer.toString(p));
        assertFalse(r.timedOut(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        long squares = (long) p * (p + 1) * (2L * p + 1) / 6;
        assertTrue(r.out().contains("source-launched allreduce on " + p + " processes: " + squares + "\n"), r::both);
        assertFalse(r.both().contains("ClassNotFoundException"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "left behind: " + r.ghosts());
    }
}
