package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.ConformanceMain;
import org.lpf4j.testkit.MpiJob;

import java.time.Duration;

/**
 * The debug layer's reports of errors between processes on the hybrid engine, where some
 * processes share a JVM (a node's threads) and others do not: {@code
 * org.lpf4j.debug.DebugAcrossProcessesTest} (lpf4j-conformance) run by rank 0 of one Open MPI job
 * of 2 JVMs as nodes of 2 threads, p = 1 … 4 (1, 1+1, 2+1, 2+2), every scenario in sequence.
 */
class DebugLayerTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(4);

    @Test
    void twoNodesOfTwoThreads() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.test.engine=hybrid", "-Dlpf.engine.hybrid.nodes=rank",
                "-Dlpf.engine.hybrid.threads=2", "-Dlpf.engine.hybrid.probeMillis=60", "-Dlpf.engine.threads.procs=2",
                "-Dlpf.conformance.maxP=4").run(2, TIMEOUT, ConformanceMain.class, "org.lpf4j.debug.DebugAcrossProcessesTest"), 43);
    }
}
