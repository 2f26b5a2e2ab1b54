package org.lpf4j.engine.hybrid;

import org.lpf4j.superstep.JobRuntime;

import java.io.Serializable;

/**
 * Where the p processes of a hybrid section live: spread over as many nodes as possible (at most
 * the job's nodes, at most {@code threadsPerNode} per node), as evenly as possible, and numbered
 * node by node (node k holds pids {@code first(k) .. first(k + 1) - 1}). So p = 5 on 2 nodes of 4
 * threads is 3 + 2, and every p ≥ 2 crosses a node boundary when there are two nodes. Nodes of the
 * job the section does not use lend their processors to the section's nodes for nested sections
 * ({@link #nodeShare}), as the MPI engine lends idle ranks. Immutable.
 *
 * @param available the job's nodes, at least {@code nodes}
 */
record Layout(int p, int nodes, int[] first, int available) implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * @param p              the processes wanted (already capped at nodesAvailable × threadsPerNode)
     * @param nodesAvailable the nodes (MPI ranks) of the job
     * @param threadsPerNode the most threads one node runs
     */
    static Layout of(int p, int nodesAvailable, int threadsPerNode) {
        int need = (p + threadsPerNode - 1) / threadsPerNode;
        int n = Math.max(need, Math.min(nodesAvailable, p));
        int[] first = new int[n + 1];
        for (int k = 0; k < n; k++) first[k + 1] = first[k] + JobRuntime.share(p, n, k);
        return new Layout(p, n, first, Math.max(n, nodesAvailable));
    }

    /**
     * @return how many nodes' worth of processors node {@code k} has for its processes' nested
     *         sections: itself and its part of the nodes the section leaves idle (so the section's
     *         processes together hold the whole job's processors)
     */
    int nodeShare(int k) { return JobRuntime.share(available, nodes, k); }

    /** @return the number of processes of node {@code k} */
    int threads(int k) { return first[k + 1] - first[k]; }

    /** @return the node of pid {@code pid} (a binary search; nodes are few) */
    int nodeOf(int pid) {
        int lo = 0, hi = nodes - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (first[mid] <= pid) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < nodes; k++) b.append(k == 0 ? "" : " + ").append(threads(k));
        return p + " processes on " + nodes + " node" + (nodes == 1 ? "" : "s") + " (" + b + " threads)";
    }
}
