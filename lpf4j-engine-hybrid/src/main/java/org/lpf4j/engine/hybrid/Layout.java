package org.lpf4j.engine.hybrid;

import org.lpf4j.superstep.JobRuntime;

import java.io.Serializable;
import java.util.Arrays;

/**
 * Where the p processes of a hybrid section live. Each process has a <em>position</em>: node k
 * holds positions {@code first(k) .. first(k + 1) - 1}, its local processes in order. Positions
 * are pids ({@code order == null}) for the sections the engine lays out itself ({@link #of}):
 * spread over as many nodes as possible (at most the job's nodes, at most {@code threadsPerNode}
 * per node), as evenly as possible, numbered node by node. So p = 5 on 2 nodes of 4 threads is
 * 3 + 2, and every p ≥ 2 crosses a node boundary when there are two nodes. A section whose
 * processes a host framework placed ({@link #ofGroups}: the tasks of a Spark executor) has pids
 * in any order, and {@code order} maps positions to pids. Nodes of the job the section does not
 * use lend their processors to the section's nodes for nested sections ({@link #nodeShare}), as
 * the MPI engine lends idle ranks. Immutable (the arrays are never written after construction).
 *
 * @param first     node k's first position, for k = 0 .. nodes; {@code first[nodes] = p}
 * @param available the job's nodes, at least {@code nodes}
 * @param order     the pid at each position, or null when positions are pids
 * @param positions the position of each pid (the inverse of {@code order}), or null with it
 */
record Layout(int p, int nodes, int[] first, int available, int[] order, int[] positions) implements Serializable {
    private static final long serialVersionUID = 2L;

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
        return new Layout(p, n, first, Math.max(n, nodesAvailable), null, null);
    }

    /**
     * A layout a host framework chose: node k runs the processes {@code groups[k]}, its local
     * process l being pid {@code groups[k][l]}.
     *
     * @param call names the caller in exceptions
     * @throws IllegalArgumentException unless the groups are non-empty and hold every pid
     *         {@code 0 .. p - 1} exactly once
     */
    static Layout ofGroups(String call, int[][] groups) {
        if (groups.length == 0) throw new IllegalArgumentException(call + ": no nodes");
        int p = 0;
        int[] first = new int[groups.length + 1];
        for (int k = 0; k < groups.length; k++) {
            if (groups[k].length == 0) throw new IllegalArgumentException(call + ": node " + k + " has no process");
            p += groups[k].length;
            first[k + 1] = p;
        }
        int[] order = new int[p], positions = new int[p];
        Arrays.fill(positions, -1);
        for (int k = 0; k < groups.length; k++) {
            for (int l = 0; l < groups[k].length; l++) {
                int pid = groups[k][l], at = first[k] + l;
                if (pid < 0 || pid >= p || positions[pid] >= 0) {
                    throw new IllegalArgumentException(call + ": the nodes " + Arrays.deepToString(groups)
                            + " do not hold every pid 0 to " + (p - 1) + " once (pid " + pid + ")");
                }
                order[at] = pid;
                positions[pid] = at;
            }
        }
        return new Layout(p, groups.length, first, groups.length, order, positions);
    }

    /**
     * @return how many nodes' worth of processors node {@code k} has for its processes' nested
     *         sections: itself and its part of the nodes the section leaves idle (so the section's
     *         processes together hold the whole job's processors)
     */
    int nodeShare(int k) { return JobRuntime.share(available, nodes, k); }

    /** @return the number of processes of node {@code k} */
    int threads(int k) { return first[k + 1] - first[k]; }

    /** @return the position of {@code pid} (a valid pid) */
    int position(int pid) { return positions == null ? pid : positions[pid]; }

    /** @return the pid of local process {@code local} of node {@code k} */
    int pid(int k, int local) {
        int at = first[k] + local;
        return order == null ? at : order[at];
    }

    /** @return the node of pid {@code pid} (a binary search; nodes are few) */
    int nodeOf(int pid) {
        int at = position(pid), lo = 0, hi = nodes - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (first[mid] <= at) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    /** @return the local process that pid {@code pid} is on its node */
    int localOf(int pid) { return position(pid) - first[nodeOf(pid)]; }

    /** @return node {@code k}'s pids for messages: {@code "pids 3 to 5"}, or {@code "pids [1, 4]"} when placed by a host */
    String pidsOf(int k) {
        if (order == null) return "pids " + first[k] + " to " + (first[k + 1] - 1);
        return "pids " + Arrays.toString(Arrays.copyOfRange(order, first[k], first[k + 1]));
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < nodes; k++) b.append(k == 0 ? "" : " + ").append(threads(k));
        return p + " processes on " + nodes + " node" + (nodes == 1 ? "" : "s") + " (" + b + " threads"
                + (order == null ? "" : ", placed by the host") + ")";
    }
}
