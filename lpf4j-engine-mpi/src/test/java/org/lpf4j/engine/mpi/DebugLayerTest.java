package org.lpf4j.engine.mpi;

import org.lpf4j.testkit.ConformanceMain;
import org.lpf4j.testkit.MpiJob;
import org.junit.jupiter.api.Test;

import java.time.Duration;

/**
 * The debug layer's reports of errors between processes on the MPI engine, where every process
 * is a JVM of its own: {@code org.lpf4j.debug.DebugAcrossProcessesTest} (lpf4j-conformance) run
 * by rank 0 of one job of 4 ranks, p = 1 … 4, every scenario in sequence, each followed by a
 * correct section. Open MPI and MPICH (a few seconds each).
 */
class DebugLayerTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(4);
    private static final String TESTS = "org.lpf4j.debug.DebugAcrossProcessesTest";

    @Test
    void openMpiFourRanks() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.conformance.maxP=4").run(4, TIMEOUT, ConformanceMain.class, TESTS), 43);
    }

    @Test
    void mpichFourRanks() {
        MpiJob.assertSuitePassed(MpiJob.mpich().jvm("-Dlpf.conformance.maxP=4").run(4, TIMEOUT, ConformanceMain.class, TESTS), 43);
    }
}
