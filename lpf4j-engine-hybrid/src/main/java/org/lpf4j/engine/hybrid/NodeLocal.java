package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;

import java.util.function.Function;

/**
 * A section over the processes of one node only, for measuring the intra-node level: the same
 * threads as the calling section, a fresh {@link Node} of one node without a {@link Link}, so its
 * syncs are this engine's node-local barriers and memory copies and call no MPI. Every node runs
 * its own at the same time; nothing crosses nodes.
 */
final class NodeLocal {
    private NodeLocal() {}

    /**
     * Collective over the local processes of {@code ctx}'s node (called by each with its local
     * index). Runs {@code body} in a fresh node-local context on every local process.
     *
     * @return local process 0's result, on local process 0; null elsewhere
     * @throws org.lpf4j.FatalException if a local process failed in the section (the node fails)
     */
    static <T> T run(HybridContext ctx, int local, Function<Context, T> body) {
        Node parent = ctx.node;
        if (local == 0) {
            parent.child = new Node(Layout.of(parent.t, 1, parent.t), 0, null, parent.settings);
        }
        parent.barrier.await(local, 0); // publishes the child
        Node child = parent.child;
        child.members[local] = new HybridContext(child, local, Args.NONE);
        Object[] result = new Object[1];
        NodeSection.runProcess(child, local, c -> result[0] = body.apply(c), "nodeLocal");
        parent.barrier.await(local, 0); // every local process has left the child section
        if (local == 0) {
            parent.child = null;
            org.lpf4j.FatalException failure = child.outcome();
            if (failure != null) parent.fail("the node-local probe section failed: " + failure.getMessage(), failure.getCause());
        }
        parent.barrier.await(local, 0);
        if (parent.failed()) throw parent.fatal(local);
        @SuppressWarnings("unchecked") T t = (T) result[0];
        return local == 0 ? t : null;
    }
}
