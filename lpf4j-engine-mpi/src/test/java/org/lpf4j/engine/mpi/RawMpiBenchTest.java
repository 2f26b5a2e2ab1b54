package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.lpf4j.testkit.MpiJob;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs {@link RawMpiBench} (behind {@code -Dlpf.test.bench=true}) on 2 ranks under Open MPI and
 * under MPICH and prints rank 0's line: the raw MPI yardstick beside which the engine's figures
 * in {@code docs/performance.md} are read. About 5 s per library.
 */
@EnabledIfSystemProperty(named = "lpf.test.bench", matches = "true")
class RawMpiBenchTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @Test
    void openMpi() { run(MpiJob.openMpi()); }

    @Test
    void mpich() { run(MpiJob.mpich()); }

    private static void run(MpiJob job) {
        MpiJob.Result r = job.run(2, TIMEOUT, RawMpiBench.class);
        assertTrue(r.exitCode() == 0 && r.out().contains("raw MPI p=2 ("), r::both);
        System.out.print(r.out());
    }
}
