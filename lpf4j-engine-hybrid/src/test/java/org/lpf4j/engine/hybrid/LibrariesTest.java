package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.testkit.ConformanceMain;
import org.lpf4j.testkit.MpiJob;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Collectives and BSMP ({@link LibrariesMain}) on 2 JVMs × t threads, t = 1, 2, 3, 4: every p from
 * 1 to 2t, so p = 2 … 8 across both nodes, each JVM a node of its own; and BSPlib's own suite,
 * unchanged, on 2 nodes of 4 threads.
 */
class LibrariesTest {
    @ParameterizedTest(name = "2 nodes x {0} threads")
    @ValueSource(ints = {1, 2, 3, 4})
    void collectivesAndBsmpOnTwoNodes(int threads) {
        MpiJob.Result r = MpiJob.openMpi().jvm("-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=" + threads,
                "-Dlpf.engine.hybrid.probeMillis=30").run(2, Duration.ofMinutes(3), LibrariesMain.class);
        assertFalse(r.timedOut(), r::both);
        for (int p = 1; p <= 2 * threads; p++) assertTrue(r.out().contains("LIB OK p=" + p + "\n"), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "left behind: " + r.ghosts());
    }

    /**
     * The BSPlib suite ({@code lpf4j-bsplib}'s tests, assertions unchanged) as the conformance suite
     * runs here: one job of 2 JVMs × 4 threads, rank 0 driving JUnit; every {@code exec(p)},
     * p = 1 … 8, spread over both nodes.
     */
    @Test
    void bsplibSuiteOnTwoNodesOfFourThreads() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.engine=hybrid", "-Dlpf.test.engine=hybrid",
                "-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=4", "-Dlpf.engine.hybrid.probeMillis=100",
                "-Dlpf.engine.threads.procs=4").run(2, Duration.ofMinutes(8), ConformanceMain.class, "package:org.lpf4j.bsplib"), 100);
    }
}
