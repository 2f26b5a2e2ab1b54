package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.engine.net.testing.NetJob;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hybrid engine with the net engine between its nodes ({@code lpf.engine.hybrid.over=net}):
 * JVMs started by the net engine's launcher (tcp boot, a mesh of authenticated TCP connections, no
 * libmpi loaded), each a node of its own with its threads; the suites run unchanged, rank 0
 * driving JUnit. Every {@code exec(p)} spreads over both nodes.
 */
@Timeout(900)
class OverNetTest {
    /** @return the options of a job of node JVMs of {@code threads} threads over the net engine */
    private static List<String> nodes(int threads, String... more) {
        List<String> o = new ArrayList<>(List.of("-Dlpf.engine=hybrid", "-Dlpf.test.engine=hybrid", "-Dlpf.engine.hybrid.over=net",
                "-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=" + threads, "-Dlpf.engine.hybrid.probeMillis=60",
                "-Dlpf.engine.threads.procs=" + threads));
        o.addAll(List.of(more));
        return o;
    }

    /** The conformance suite and BSPlib's own suite in one job (one start-up of the node JVMs). */
    @Test
    void theConformanceAndBsplibSuitesOnTwoNodesOfFourThreads() throws Exception {
        NetJob.assertSuitePassed(NetJob.run(2, nodes(4), NetJob.CONFORMANCE_MAIN, "package:org.lpf4j.conformance",
                "package:org.lpf4j.bsplib"), 250);
    }

    @Test
    void theConformanceSuiteWithTheDebugLayerOnTwoNodesOfTwoThreads() throws Exception {
        NetJob.assertSuitePassed(NetJob.run(2, nodes(2, "-Dlpf.debug=true", "-Dlpf.conformance.maxP=4"), NetJob.CONFORMANCE_MAIN), 90);
    }

    /** The collectives and BSMP at p = 1 … 8: only two node JVMs of four threads reach p = 8. */
    @Test
    void theCollectivesAndBsmpOnTwoNodesOfFourThreads() throws Exception {
        String out = NetJob.run(2, nodes(4), LibrariesMain.class.getName());
        for (int p = 1; p <= 8; p++) assertTrue(out.contains("LIB OK p=" + p + "\n"), out);
    }
}
