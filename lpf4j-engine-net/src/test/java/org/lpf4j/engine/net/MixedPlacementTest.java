package org.lpf4j.engine.net;

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
 * Issue 42's mixed placement: two emulated hosts ({@code bin/emulated-hosts}, network namespaces
 * on a bridge) of two JVMs each, two ranks per JVM ({@code lpf.engine.net.perJvm=2}), one job of
 * p = 8: rank r in JVM r / 2 on host r / 4. The suites' driver runs the suites unchanged across
 * them (p = 1 .. 8), and each rank prints its connections by path as its mesh closes
 * ({@code lpf.engine.net.showPaths}): every rank's main connection to the other rank of its JVM
 * took rings in the JVM's memory, those to the two ranks of the other JVM of its host a
 * shared-memory file, those to the other host's four ranks TCP. The namespaces share
 * {@code /dev/shm} and the kernel's boot id, so only the boot's address (not one of the other
 * namespace's) keeps the other host on TCP, which is what is checked. The counts of connections
 * are bounded by two a peer (a pair's large connection is made only when the higher rank sends a
 * large payload, and one its peer closed first may be gone by then). Under {@code CI=true} a
 * machine without root or iproute2 fails the test.
 *
 * <p>The default run: the conformance suite with every section at p = 8 ({@code lpf.test.procs}),
 * so that each spans both hosts; with {@code -Dlpf.mixed.suites=all} the conformance, debug,
 * collectives, BSMP and BSPlib suites unchanged (every p from 1 to 8; 815 tests, 1 to 4 minutes on 2
 * shared cores, docs/scale.md), and the checkpoint suite.
 */
class MixedPlacementTest {
    private static final int HOSTS = 2, PER_HOST = 2, PER_JVM = 2, P = HOSTS * PER_HOST * PER_JVM;
    private static final boolean ALL = "all".equals(System.getProperty("lpf.mixed.suites"));
    /** The default run's suite; with {@link #ALL} every suite, at every p. */
    private static final String[] SUITES = ALL
            ? new String[] {"package:org.lpf4j.conformance", "package:org.lpf4j.debug", "package:org.lpf4j.coll", "package:org.lpf4j.bsmp",
                    "package:org.lpf4j.bsplib", "package:org.lpf4j.cr"}
            : new String[] {"package:org.lpf4j.conformance"};

    @Test
    @Timeout(900)
    void theSuitesPassWithRingsInAJvmSharedMemoryInAHostAndTcpBetweenHosts() throws Exception {
        long t0 = System.nanoTime();
        // The default run: every test of the conformance suite at p = 8 only (lpf.test.procs), each section across both hosts.
        String out = EmulatedHosts.run(HOSTS, PER_HOST, P, 890, List.of("-Dlpf.engine.net.perJvm=" + PER_JVM,
                "-Dlpf.test.procs=" + (ALL ? "" : P), MeshPaths.OPTION), SUITES);
        NetJob.assertSuitePassed(out, ALL ? 800 : 30);
        Map<Integer, MeshPaths.Ranks> lines = MeshPaths.read(out, P);
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7), new ArrayList<>(lines.keySet()), "a line of paths from every rank:\n" + out);
        for (int r = 0; r < P; r++) {
            MeshPaths.Ranks line = lines.get(r);
            List<List<Integer>> want = MeshPaths.byPlacement(r, P, PER_JVM, PER_JVM * PER_HOST);
            List<Integer> jvm = want.get(MeshPaths.IN_JVM), host = want.get(MeshPaths.SHARED_MEMORY), other = want.get(MeshPaths.TCP);
            assertEquals(want, line.peers(), "rank " + r + ": the other rank of its JVM through rings in its memory,"
                    + " the other JVM of its host through a shared-memory file, the other host through TCP: " + line.text());
            int[] c = line.connections();
            assertTrue(c[MeshPaths.IN_JVM] <= 2 * jvm.size() && c[MeshPaths.SHARED_MEMORY] <= 2 * host.size()
                    && c[MeshPaths.TCP] <= 2 * other.size(), "at most two connections a peer: " + line.text());
        }
        System.out.println("MixedPlacementTest: " + HOSTS + " hosts x " + PER_HOST + " JVMs x " + PER_JVM + " ranks, " + ScaleTest.summary(out)
                + "; " + String.join("; ", lines.values().stream().map(l -> l.text().substring("lpf4j net: ".length())).toList())
                + " in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
    }
}
