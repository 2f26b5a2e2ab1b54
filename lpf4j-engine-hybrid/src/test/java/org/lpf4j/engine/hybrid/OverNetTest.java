package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.testkit.MeshPaths;
import org.lpf4j.testkit.NetJob;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hybrid engine with the net engine between its nodes ({@code lpf.engine.hybrid.over=net}):
 * JVMs started by the net engine's launcher (tcp boot, a mesh of authenticated TCP connections, no
 * libmpi loaded), each a node of its own with its threads; the suites run unchanged, rank 0
 * driving JUnit. Every {@code exec(p)} spreads over both nodes. The JVMs run without the MPI engine
 * on their class path (the hybrid engine needs none of it), and with 4 threads per node on a
 * machine of fewer than 8 CPUs each node runs on a share of them ({@code NodeCpus}).
 */
@Timeout(900)
class OverNetTest {
    /** The class path entries the node JVMs go without. */
    private static final List<String> WITHOUT_MPI = List.of("lpf4j-engine-mpi");

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
        NetJob.assertSuitePassed(NetJob.runWithout(WITHOUT_MPI, 2, nodes(4), NetJob.CONFORMANCE_MAIN, "package:org.lpf4j.conformance",
                "package:org.lpf4j.bsplib"), 250);
    }

    /**
     * The checkpoint module's suite, unchanged: rank 0's {@code Parameters.set} reaches the other
     * node with each section. Left out, and the run prints it: {@code CheckpointEventTest}, which
     * reads a JFR recording of the caller's JVM ({@code ConformanceMain.CALLERS_JVM}).
     */
    @Test
    void theCheckpointSuiteOnTwoNodesOfFourThreads() throws Exception {
        NetJob.assertSuitePassed(NetJob.runWithout(WITHOUT_MPI, 2, nodes(4),
                NetJob.CONFORMANCE_MAIN, "package:org.lpf4j.cr"), 45);
    }

    @Test
    void theConformanceSuiteWithTheDebugLayerOnTwoNodesOfTwoThreads() throws Exception {
        NetJob.assertSuitePassed(NetJob.runWithout(WITHOUT_MPI, 2, nodes(2, "-Dlpf.debug=true", "-Dlpf.conformance.maxP=4"), NetJob.CONFORMANCE_MAIN), 90);
    }

    /**
     * lpf.capacity=grow on every node JVM: the node's queue (local and remote requests) and register
     * grow. A job of its own (about 50 s on 2 busy cores), so behind {@code -Dlpf.test.long=true};
     * the default run has the net engine's grow job (NetConformanceTest) and the in-JVM suites.
     */
    @Test
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "lpf.test.long", matches = "true")
    void theGrowModeOnTwoNodesOfTwoThreads() throws Exception {
        NetJob.assertSuitePassed(NetJob.runWithout(WITHOUT_MPI, 2, nodes(2, "-Dlpf.capacity=grow", "-Dlpf.conformance.maxP=4"),
                NetJob.CONFORMANCE_MAIN, "org.lpf4j.conformance.GrowingCapacityTest"), 4);
    }

    /**
     * The collectives and BSMP at p = 1 … 8: only two node JVMs of four threads reach p = 8. The two
     * node JVMs share this host: their connection took a shared-memory file, never TCP (each node
     * prints its connections by path as its mesh closes, {@link MeshPaths}).
     */
    @Test
    void theCollectivesAndBsmpOnTwoNodesOfFourThreads() throws Exception {
        String out = NetJob.runWithout(WITHOUT_MPI, 2, nodes(4, MeshPaths.OPTION), LibrariesMain.class.getName());
        for (int p = 1; p <= 8; p++) assertTrue(out.contains("LIB OK p=" + p + "\n"), out);
        Map<Integer, MeshPaths.Ranks> paths = MeshPaths.read(out, 2);
        assertEquals(List.of(0, 1), List.copyOf(paths.keySet()), "a line of paths from each node:\n" + out);
        for (MeshPaths.Ranks node : paths.values()) {
            assertEquals(List.of(List.of(), List.of(1 - node.rank()), List.of()), node.peers(), node.text());
            int[] c = node.connections();
            assertTrue(c[MeshPaths.IN_JVM] == 0 && c[MeshPaths.TCP] == 0 && c[MeshPaths.SHARED_MEMORY] <= 2, node.text());
            System.out.println("OverNetTest: " + node.text());
        }
    }
}
