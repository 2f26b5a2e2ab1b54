package org.lpf4j.engine.hybrid;

/** Wording of node-level failures (the engine between the nodes, MPI or net, numbers the nodes as its pids). */
final class Nodes {
    private Nodes() {}

    /** @return the node-level engine's message with its pids called nodes */
    static String explain(String levelMessage) {
        if (levelMessage == null) return "";
        return levelMessage.replaceAll("\\bpid (\\d+(?:, \\d+)*)", "node $1");
    }
}
