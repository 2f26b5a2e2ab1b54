package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.MpiJob;
import org.lpf4j.testkit.NetJob;
import org.lpf4j.engine.threads.group.Cpus;

import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link NodeCpus} in a real job: 2 node JVMs under {@code mpirun} on this host with as many
 * threads each as the host has CPUs (so that together they outnumber them) run their processes on
 * halves of the CPUs, and Open MPI then polls without yielding; with
 * {@code lpf.engine.hybrid.bind=none}, or with threads that fit, nothing is bound and it yields.
 * Either way rank 0's main thread has all CPUs again after the section. Over the net engine (its
 * launcher gives each JVM its local rank) the node JVMs take halves of the CPUs the same way.
 */
class CpuShareTest {
    private static final Pattern LINE = Pattern.compile("CPUS pid=(\\d+) node=(\\d+) list=(\\S+) yield=(\\S+)");

    private static BitSet parse(String list) {
        BitSet cpus = new BitSet();
        for (String c : list.split(",")) cpus.set(Integer.parseInt(c));
        return cpus;
    }

    private static BitSet ourCpus() {
        BitSet cpus = new BitSet();
        for (int c : Cpus.allowedCpus()) cpus.set(c);
        return cpus;
    }

    /** Runs 2 nodes of {@code threads} threads; returns each node's CPU set (all its processes must agree) and yield value. */
    private static Map<Integer, String[]> run(int threads, String... jvm) {
        String[] options = new String[jvm.length + 3];
        options[0] = "-Dlpf.engine.hybrid.nodes=rank";
        options[1] = "-Dlpf.engine.hybrid.threads=" + threads;
        options[2] = "-Dlpf.engine.hybrid.probeMillis=20";
        System.arraycopy(jvm, 0, options, 3, jvm.length);
        MpiJob.Result r = MpiJob.openMpi().unsetEnvironment("OMPI_MCA_mpi_yield_when_idle").jvm(options).run(2, Duration.ofMinutes(2), CpuShareMain.class);
        assertFalse(r.timedOut(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "left behind: " + r.ghosts());
        return nodesOf(r.out(), threads);
    }

    /** @return each node's CPU set and yield value as a job of 2 nodes of {@code threads} threads printed them */
    private static Map<Integer, String[]> nodesOf(String out, int threads) {
        Matcher done = Pattern.compile("CPUS DONE p=" + 2 * threads + " main=(\\S+)").matcher(out);
        assertTrue(done.find(), out);
        assertEquals(ourCpus(), parse(done.group(1)), "rank 0's main thread after the section: " + out);
        Map<Integer, String[]> nodes = new HashMap<>();
        Matcher m = LINE.matcher(out);
        int lines = 0;
        while (m.find()) {
            lines++;
            String[] seen = {m.group(3), m.group(4)};
            String[] before = nodes.putIfAbsent(Integer.parseInt(m.group(2)), seen);
            if (before != null) {
                assertEquals(before[0], seen[0], "processes of node " + m.group(2) + " disagree: " + out);
                assertEquals(before[1], seen[1]);
            }
        }
        assertEquals(2 * threads, lines, out);
        assertEquals(2, nodes.size(), out);
        return nodes;
    }

    @Test
    void twoNodesWhoseThreadsOutnumberTheCpusTakeHalfEach() {
        BitSet all = ourCpus();
        int cpus = all.cardinality();
        assumeTrue(cpus >= 2 && cpus % 2 == 0 && cpus == Cpus.online(), "needs an even number of CPUs, all of them");
        Map<Integer, String[]> nodes = run(cpus);
        assertHalves(all, nodes);
        assertEquals("0", nodes.get(0)[1], "a node on CPUs of its own polls without yielding");
        assertEquals("0", nodes.get(1)[1]);
    }

    /** Over net, without the MPI engine on the class path: the same halves (no Open MPI setting to read there). */
    @Test
    void overNetTwoNodesWhoseThreadsOutnumberTheCpusTakeHalfEach() throws Exception {
        BitSet all = ourCpus();
        int cpus = all.cardinality();
        assumeTrue(cpus >= 2 && cpus % 2 == 0 && cpus == Cpus.online(), "needs an even number of CPUs, all of them");
        String out = NetJob.runWithout(List.of("lpf4j-engine-mpi"), 2, List.of("-Dlpf.engine.hybrid.over=net",
                "-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=" + cpus, "-Dlpf.engine.hybrid.probeMillis=20"),
                CpuShareMain.class.getName());
        assertHalves(all, nodesOf(out, cpus));
    }

    /** Asserts that the two nodes run on disjoint halves of {@code all}. */
    private static void assertHalves(BitSet all, Map<Integer, String[]> nodes) {
        int cpus = all.cardinality();
        BitSet a = parse(nodes.get(0)[0]), b = parse(nodes.get(1)[0]);
        assertFalse(a.intersects(b), a + " / " + b);
        assertEquals(cpus / 2, a.cardinality(), a.toString());
        BitSet union = (BitSet) a.clone();
        union.or(b);
        assertEquals(all, union);
    }

    @Test
    void bindNoneLeavesEveryNodeOnAllCpusAndYielding() {
        BitSet all = ourCpus();
        assumeTrue(all.cardinality() >= 2, "needs 2 CPUs");
        Map<Integer, String[]> nodes = run(all.cardinality(), "-Dlpf.engine.hybrid.bind=none");
        for (String[] node : nodes.values()) {
            assertEquals(all, parse(node[0]));
            assertEquals("1", node[1]);
        }
    }

    @Test
    void threadsThatFitTheCpusAreNotBound() {
        BitSet all = ourCpus();
        assumeTrue(all.cardinality() >= 2, "needs 2 CPUs");
        Map<Integer, String[]> nodes = run(1);
        for (String[] node : nodes.values()) {
            assertEquals(all, parse(node[0]));
            assertEquals("1", node[1]);
        }
    }
}
