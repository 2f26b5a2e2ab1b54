package org.lpf4j.engine.hybrid;

/** Wording of node-level failures (the MPI engine numbers the nodes as its pids). */
final class Nodes {
    private Nodes() {}

    /** @return the MPI engine's message with its pids called nodes */
    static String explain(String mpiMessage) {
        if (mpiMessage == null) return "";
        return mpiMessage.replaceAll("\\bpid (\\d+(?:, \\d+)*)", "node $1");
    }
}
