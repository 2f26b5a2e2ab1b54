package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.ConformanceMain;
import org.lpf4j.testkit.MpiJob;

import java.time.Duration;

/**
 * The whole conformance suite ({@code lpf4j-conformance}, assertions unchanged) on the hybrid
 * engine: one Open MPI job of 2 JVMs, each a node of its own ({@code lpf.engine.hybrid.nodes=rank})
 * with 4 threads, rank 0 driving JUnit ({@link ConformanceMain}). Every {@code exec(p)} of the suite,
 * p = 1, 2, 3, 4, 5, 8, is spread over both nodes: 1, 1+1, 2+1, 2+2, 3+2, 4+4 threads.
 */
class ConformanceTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(8);

    @Test
    void twoNodesOfFourThreads() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.test.engine=hybrid", "-Dlpf.engine.hybrid.nodes=rank",
                "-Dlpf.engine.hybrid.threads=4", "-Dlpf.engine.hybrid.probeMillis=100", "-Dlpf.engine.threads.procs=4")
                .run(2, TIMEOUT, ConformanceMain.class), 150);
    }

    /**
     * Three nodes of 2 threads (p = 1 … 5 of the suite, {@code lpf.conformance.maxP=6}): every node
     * has two others, so the round's bits of who sends to whom are read for sources both below and
     * above it, and each node packs for two destinations. An {@code exec(2)} there lands on 2 of
     * the 3 nodes, and the idle node's processors are lent to them for nested sections (threads
     * engine of up to 4 processes).
     */
    @Test
    void threeNodesOfTwoThreads() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.test.engine=hybrid", "-Dlpf.engine.hybrid.nodes=rank",
                "-Dlpf.engine.hybrid.threads=2", "-Dlpf.engine.hybrid.probeMillis=60", "-Dlpf.engine.threads.procs=4",
                "-Dlpf.conformance.maxP=6")
                .run(3, TIMEOUT, ConformanceMain.class), 110);
    }

    /**
     * The suite with the debug layer on ({@code lpf.debug=true} in both JVMs): 2 nodes of 2
     * threads, p = 1 … 4. The processes of a node share the layer's board and check each other;
     * every process makes the layer's syncs on either node, so a correct program passes. The tests
     * that expect the engine's own refusal of a deliberate error are left out
     * ({@code ExpectsEngineRefusal}).
     */
    @Test
    void twoNodesOfTwoThreadsWithTheDebugLayer() {
        MpiJob.assertSuitePassed(twoNodesOfTwoThreads(MpiJob.openMpi()).jvm("-Dlpf.debug=true")
                .run(2, TIMEOUT, ConformanceMain.class), 90);
    }

    /** @return {@code job} with 2 JVMs as nodes of 2 threads each: the suite's p = 1 … 4 (1, 1+1, 2+1, 2+2) */
    private static MpiJob twoNodesOfTwoThreads(MpiJob job) {
        return job.jvm("-Dlpf.test.engine=hybrid", "-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=2",
                "-Dlpf.engine.hybrid.probeMillis=60", "-Dlpf.engine.threads.procs=2", "-Dlpf.conformance.maxP=4");
    }

    /**
     * The same suite on MPICH (Hydra, libmpich.so.12): 2 JVMs × 2 threads, p = 1, 2, 3, 4
     * ({@code lpf.conformance.maxP=4}: the machine has 4 processes; 1+1, 1+1, 2+1, 2+2 threads),
     * with the sizes of each superstep in an {@code MPI_Alltoall} after the allreduce
     * ({@code lpf.engine.mpi.pairsInRoundUpTo=1}: the way of more nodes than that limit).
     */
    @Test
    void mpichTwoNodesOfTwoThreads() {
        MpiJob.assertSuitePassed(twoNodesOfTwoThreads(MpiJob.mpich()).jvm("-Dlpf.engine.mpi.pairsInRoundUpTo=1")
                .run(2, TIMEOUT, ConformanceMain.class), 110);
    }
}
