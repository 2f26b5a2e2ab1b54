package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.engine.threads.group.ProcessThreads;
import org.lpf4j.spi.kit.CrossJvmObjects;

import java.util.concurrent.ThreadFactory;

/**
 * What every node (MPI rank) runs for a hybrid section: shipped by the MPI engine's {@code exec}
 * to the first {@code layout.nodes()} ranks, it runs as one process of an MPI-engine section whose
 * processes are the nodes. It builds the node's {@link Link} and {@link Node}, starts the node's
 * processes (local process 0 on this thread, the leader, which alone calls MPI; the others on new
 * threads), waits for them, and ends with the node's failure if it has one, so that the MPI
 * engine's end round tells the other nodes and pid 0.
 */
final class NodeSection implements Spmd, CrossJvmObjects.Carrier {
    private static final long serialVersionUID = 1L;

    private final Layout layout;
    private final Spmd spmd;
    private final HybridSettings settings;
    /** The hook call whose ranks made their layouts themselves (they must agree), or null for an exec. */
    private final String hookCall;

    /** Why the nodes refused to start (a hook's ranks disagree, two nodes share a host), or null; read by the hooking thread. */
    private transient volatile RuntimeException refusal;

    /** @return why this node refused to start the section, or null */
    RuntimeException refusal() { return refusal; }

    /** @param hookCall for a hook: the call, named when the nodes' thread counts differ; null for an exec */
    NodeSection(Layout layout, Spmd spmd, HybridSettings settings, String hookCall) {
        this.layout = layout;
        this.spmd = spmd;
        this.settings = settings;
        this.hookCall = hookCall;
    }

    /** The program's function: operators and failures from other nodes resolve in its class loader. */
    @Override
    public Object program() { return spmd; }

    @Override
    public void run(Context nodes) {
        Link link = new Link(nodes);
        if (hookCall != null || !settings.perRank()) {
            try {
                link.checkNodes(layout.threads(nodes.pid()), !settings.perRank(), hookCall);
            } catch (RuntimeException e) {
                refusal = e; // every node refuses alike; hook rethrows it as such
                throw e;
            }
        }
        Node node = new Node(layout, nodes.pid(), link, settings);
        link.bind(node);
        Args args = nodes.args();
        for (int l = 0; l < node.t; l++) node.members[l] = new HybridContext(node, l, l == 0 ? args : args.withoutIo());
        FatalException failure = runMembers(node, spmd);
        if (failure != null) throw failure;
    }

    /**
     * Runs the node's processes, whose contexts {@code node.members} holds: local process 0 on
     * this thread, the others on new threads; returns when every one has left its SPMD function.
     *
     * <p>Everyone or nobody, as on the threads engine ({@link ProcessThreads#runAll}): if one of
     * the node's threads cannot be started, none of the node's processes runs its SPMD function
     * and this throws ({@link org.lpf4j.LpfOutOfMemoryException} "node n (pids a to b): could
     * start only k threads; nothing ran", or {@link FatalException} "... could not start its
     * threads; nothing ran"). "Nothing ran" is about this node: the other nodes' processes may
     * already run. The exception ends this node's part of the MPI-engine section like any
     * exception of the node's own, so the other nodes' next round with this node throws
     * {@link FatalException} (their processes fail, none waits for ever) and pid 0's call reports
     * it as the section's cause.
     *
     * @return the node's failure, or null
     */
    static FatalException runMembers(Node node, Spmd spmd) {
        return runMembers(node, spmd, Thread::new);
    }

    /** {@link #runMembers(Node, Spmd)} with the threads from {@code factory} (tests fail a start with it). */
    static FatalException runMembers(Node node, Spmd spmd, ThreadFactory factory) {
        try (NodeCpus.Binding bound = NodeCpus.enter()) { // the threads started here inherit the share
            ProcessThreads.runAll(node.t, l -> "lpf-hybrid-node" + node.node + "-pid" + node.layout.pid(node.node, l),
                    l -> runProcess(node, l, spmd, "exec"),
                    "node " + node.node + " (" + node.layout.pidsOf(node.node) + ")", factory);
        }
        return node.outcome();
    }

    /** Runs one process's SPMD function on this thread and records its exit. */
    static void runProcess(Node node, int local, Spmd spmd, String call) {
        Throwable thrown = ProcessThreads.run(node.ledger, local, spmd, node.members[local], "hybrid", call);
        node.exit(local, thrown);
    }
}
