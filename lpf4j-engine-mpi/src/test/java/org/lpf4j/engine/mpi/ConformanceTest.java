package org.lpf4j.engine.mpi;

import org.lpf4j.testkit.MpiJob;
import org.lpf4j.testkit.ConformanceMain;
import org.junit.jupiter.api.Test;

import java.time.Duration;


/**
 * The whole conformance suite ({@code lpf4j-conformance}, unchanged in what it asserts) on the MPI
 * engine: one MPI job of 8 ranks (oversubscribed on 2 cores) whose rank 0 runs the suite
 * ({@link ConformanceMain}), so every {@code exec(p)}, p = 1, 2, 3, 4, 5, 8, runs on real processes.
 * Open MPI and MPICH, both in every run (about a minute each on 2 cores). Every way of a sync's
 * meta-data runs: streams sent before the allreduce, which carries who sends to whom, up to
 * {@code lpf.engine.mpi.pairsInRoundUpTo} processes (every p in the MPICH run and the debug-layer
 * run, p ≤ 4 in the Open MPI run); above, in Open MPI the way each superstep's numbers choose at
 * p = 5 and 8 ({@code sparseFrom=5}: the sparse consensus for a ring, the alltoall for a total
 * exchange), and in the sync-deadline run the sparse and dense ways polled from p = 2; the
 * hybrid engine's MPICH run takes the alltoall for its dense supersteps.
 */
class ConformanceTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    @Test
    void openMpiEightRanks() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.engine.mpi.pairsInRoundUpTo=4", "-Dlpf.engine.mpi.sparseFrom=5").run(8, TIMEOUT, ConformanceMain.class), 150);
    }

    /**
     * The suite with the debug layer on ({@code lpf.debug=true} in every rank): one Open MPI job of
     * 4 ranks, p = 1 … 4. Every process of a section makes the layer's syncs whichever JVM it runs
     * in, so a correct program passes; the tests that expect the engine's own refusal of a
     * deliberate error are left out ({@code ExpectsEngineRefusal}). The sync deadline is on too
     * (generous: a correct program never meets it), so the waits of the early streams poll.
     */
    @Test
    void openMpiFourRanksWithTheDebugLayer() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.debug=true", "-Dlpf.engine.mpi.syncTimeout=60000",
                "-Dlpf.conformance.maxP=4")
                .run(4, TIMEOUT, ConformanceMain.class), 90);
    }

    /**
     * The suite with the sync deadline on ({@code lpf.engine.mpi.syncTimeout}): every wait of a
     * sync polls nonblocking calls, here through the ways that exchange counts after the round
     * ({@code MPI_Ialltoall} or the consensus from sections of 3). A correct
     * program never meets a generous deadline. One Open MPI job of 4 ranks, p = 1 … 4.
     */
    @Test
    void openMpiFourRanksWithTheSyncDeadline() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.engine.mpi.syncTimeout=60000", "-Dlpf.engine.mpi.pairsInRoundUpTo=1",
                "-Dlpf.engine.mpi.sparseFrom=3", "-Dlpf.conformance.maxP=4").run(4, TIMEOUT, ConformanceMain.class), 90);
    }

    /**
     * The suite on MPICH (Hydra): 5 ranks, p = 1 … 5, in bin/test; Open MPI's job above covers
     * p = 8. Oversubscribed MPICH ranks wait by polling and yielding ({@code lpf.engine.mpi.wait=auto}),
     * and still 8 of them on 2 cores take about twice as long as 5; {@code -Dlpf.test.mpich.ranks=8}
     * runs the full sizes.
     */
    @Test
    void mpichRanks() {
        int ranks = Integer.getInteger("lpf.test.mpich.ranks", 5);
        MpiJob.assertSuitePassed(MpiJob.mpich().jvm("-Dlpf.conformance.maxP=" + ranks)
                .run(ranks, TIMEOUT, ConformanceMain.class), 100);
    }
}
