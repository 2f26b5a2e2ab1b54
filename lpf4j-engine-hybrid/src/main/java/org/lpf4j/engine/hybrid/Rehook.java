package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;

/**
 * {@code rehook} on the hybrid engine: a fresh section over the same processes (same threads,
 * same layout). The leader starts a rehook of the node-level MPI-engine section (whose round
 * with the other nodes fails the section when another node called sync instead), makes the
 * child {@link Node} and hands it to the other local processes through a round of the node's
 * barrier; every process then runs the function in the child with its own args, and a second
 * round releases them together once the child section has ended on every node.
 */
final class Rehook {
    private Rehook() {}

    /** Called by every local process of the node, after the barrier round that checked they all called rehook. */
    static void run(HybridContext ctx, int local, Spmd spmd, Args args) {
        Node parent = ctx.node;
        if (local == 0) {
            try {
                parent.link.nodes().rehook(childNodes -> {
                    Link link = new Link(childNodes);
                    Node child = new Node(parent.layout, parent.node, link, parent.settings);
                    link.bind(child);
                    parent.child = child; // published by the barrier round
                    parent.barrier.await(0, 0);
                    runIn(child, 0, spmd, args);
                    child.awaitAllExited();
                    FatalException failure = child.outcome();
                    if (failure != null) throw failure;
                }, Args.NONE);
            } catch (FatalException e) {
                parent.fail(parent.child == null ? "the nodes could not start the rehook: " + e.getMessage()
                        : "a rehooked section failed: " + e.getMessage(), e.getCause());
                parent.child = null;
                FatalException f = new FatalException("rehook at " + parent.who(0) + " failed: " + e.getMessage(), e.getCause());
                throw f;
            } catch (RuntimeException | Error e) {
                parent.fail(parent.who(0) + " could not start the rehook: " + e, e);
                throw e;
            }
            parent.child = null; // read by the others before the last barrier round
            parent.barrier.await(0, 0);
        } else {
            parent.barrier.await(local, 0);
            Node child = parent.child;
            runIn(child, local, spmd, args);
            parent.barrier.await(local, 0);
        }
    }

    private static void runIn(Node child, int local, Spmd spmd, Args args) {
        child.members[local] = new HybridContext(child, local, args);
        NodeSection.runProcess(child, local, spmd, "rehook");
    }
}
