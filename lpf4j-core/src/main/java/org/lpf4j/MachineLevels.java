package org.lpf4j;

import java.util.Arrays;
import java.util.Objects;

/**
 * The two levels of a machine whose processes are grouped in <em>nodes</em> (processes that share
 * memory, e.g. the threads of one JVM), as an engine with such a structure reports it in
 * {@link Machine#levels()}: which pids share a node, and the BSP figures of each level.
 *
 * <p><b>Node layout.</b> Pids are numbered node by node: node k holds the pids
 * {@code firstPid(k) … firstPid(k) + nodeSize(k) − 1}, nodes are numbered from 0, every node
 * holds at least one process, and the sizes add up to the machine's {@code p}.
 *
 * <p><b>Levels.</b>
 * <ul>
 * <li>{@link #intra()}: g and l of a superstep among the processes of one node only (memory
 *     copies), measured over the processes of node 0 (the largest node); its {@code p} is that
 *     node's size.</li>
 * <li>{@link #inter()}: g and l of a superstep among one process per node (the network), g in
 *     seconds per byte that one <em>node</em> sends or receives; its {@code p} is the number of
 *     nodes.</li>
 * </ul>
 * A superstep of the whole machine always costs at least the whole machine's l
 * ({@link Machine#l(long)}), since every sync involves every process; so a library prices one of
 * its supersteps as {@code l + hIntra·intra.g + hInter·inter.g}, with hIntra the bytes the busiest
 * process moves inside its node and hInter the bytes the busiest node moves across nodes. The
 * level machines report {@code freeP = 0} (they are figures, not contexts to exec from) and have
 * no levels of their own.
 *
 * <p>Immutable; every method is O(1) except {@link #nodeOf} (a binary search over the nodes).
 */
public final class MachineLevels {
    /** first[k]: the first pid of node k; first[nodes]: p. */
    private final int[] first;
    private final Machine intra;
    private final Machine inter;

    /**
     * @param nodeSizes the processes of each node, in pid order, each ≥ 1
     * @param intra     the figures of one node (its {@code p} at most the largest node size)
     * @param inter     the figures of one process per node (its {@code p} the number of nodes)
     * @throws IllegalArgumentException if a size is below 1, the levels' {@code p} do not match the
     *                                  layout, or a level has levels of its own
     */
    public MachineLevels(int[] nodeSizes, Machine intra, Machine inter) {
        Objects.requireNonNull(intra, "MachineLevels: intra");
        Objects.requireNonNull(inter, "MachineLevels: inter");
        if (nodeSizes.length == 0) throw new IllegalArgumentException("MachineLevels: no nodes");
        int[] f = new int[nodeSizes.length + 1];
        int largest = 0;
        for (int k = 0; k < nodeSizes.length; k++) {
            if (nodeSizes[k] < 1) {
                throw new IllegalArgumentException("MachineLevels: node " + k + " has " + nodeSizes[k] + " processes; sizes "
                        + Arrays.toString(nodeSizes));
            }
            f[k + 1] = Math.addExact(f[k], nodeSizes[k]);
            largest = Math.max(largest, nodeSizes[k]);
        }
        if (inter.p() != nodeSizes.length || intra.p() > largest) {
            throw new IllegalArgumentException("MachineLevels(" + Arrays.toString(nodeSizes) + "): inter.p()=" + inter.p()
                    + " must be the number of nodes " + nodeSizes.length + " and intra.p()=" + intra.p()
                    + " at most the largest node " + largest);
        }
        if (intra.levels().isPresent() || inter.levels().isPresent()) {
            throw new IllegalArgumentException("MachineLevels: a level has levels of its own");
        }
        this.first = f;
        this.intra = intra;
        this.inter = inter;
    }

    /** @return the number of nodes, ≥ 1 */
    public int nodes() { return first.length - 1; }

    /** @return the processes of all nodes together (the machine's p) */
    public int p() { return first[first.length - 1]; }

    /**
     * @param node a node, 0 ≤ node &lt; {@link #nodes()}
     * @return its first pid
     */
    public int firstPid(int node) {
        checkNode("firstPid", node);
        return first[node];
    }

    /**
     * @param node a node, 0 ≤ node &lt; {@link #nodes()}
     * @return its number of processes, ≥ 1
     */
    public int nodeSize(int node) {
        checkNode("nodeSize", node);
        return first[node + 1] - first[node];
    }

    /**
     * @param pid a pid, 0 ≤ pid &lt; {@link #p()}
     * @return the node that holds it
     */
    public int nodeOf(int pid) {
        if (pid < 0 || pid >= p()) throw new IllegalArgumentException("MachineLevels.nodeOf(" + pid + "): not in [0, " + p() + ")");
        int lo = 0, hi = nodes() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (first[mid] <= pid) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    /** @return g and l among the processes of one node (see the class comment) */
    public Machine intra() { return intra; }

    /** @return g and l among one process per node, g per byte of a node (see the class comment) */
    public Machine inter() { return inter; }

    private void checkNode(String call, int node) {
        if (node < 0 || node >= nodes()) {
            throw new IllegalArgumentException("MachineLevels." + call + "(" + node + "): not in [0, " + nodes() + ")");
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("MachineLevels[").append(nodes()).append(" nodes (");
        for (int k = 0; k < nodes(); k++) b.append(k == 0 ? "" : " + ").append(first[k + 1] - first[k]);
        return b.append("), intra=").append(intra).append(", inter=").append(inter).append(']').toString();
    }
}
