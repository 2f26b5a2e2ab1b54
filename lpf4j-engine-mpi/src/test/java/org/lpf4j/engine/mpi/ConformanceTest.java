package org.lpf4j.engine.mpi;

import org.lpf4j.engine.mpi.testing.MpiJob;
import org.lpf4j.engine.mpi.testing.ConformanceMain;
import org.junit.jupiter.api.Test;

import java.time.Duration;


/**
 * The whole conformance suite ({@code lpf4j-conformance}, unchanged in what it asserts) on the MPI
 * engine: one MPI job of 8 ranks (oversubscribed on 2 cores) whose rank 0 runs the suite
 * ({@link ConformanceMain}), so every {@code exec(p)}, p = 1, 2, 3, 4, 5, 8, runs on real processes.
 * Open MPI and MPICH, both in every run (about a minute each on 2 cores). Both ways of a sync's
 * counts run in both: in the allreduce up to {@code lpf.engine.mpi.countsInRoundUpTo} processes
 * (4 by default, 2 in the MPICH run), in an alltoall above.
 */
class ConformanceTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    @Test
    void openMpiEightRanks() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().run(8, TIMEOUT, ConformanceMain.class), 150);
    }

    @Test
    void mpichEightRanks() {
        MpiJob.assertSuitePassed(MpiJob.mpich().jvm("-Dlpf.engine.mpi.countsInRoundUpTo=2").run(8, TIMEOUT, ConformanceMain.class), 150);
    }
}
