package org.lpf4j.engine.hybrid;

import org.lpf4j.FatalException;
import org.lpf4j.spi.kit.BulkCopy;
import org.lpf4j.engine.threads.group.GroupFailure;
import org.lpf4j.engine.threads.group.Participants;
import org.lpf4j.engine.threads.group.ProcessLedger;
import org.lpf4j.engine.threads.group.RequestQueue;
import org.lpf4j.engine.threads.group.SuperstepBarrier;
import org.lpf4j.engine.threads.group.ThreadsPolicy;

/**
 * The processes of one hybrid section that live in this JVM (one node): their contexts and
 * threads, the threads engine's superstep barrier over them, the outboxes they pull node-local
 * puts from, the {@link Link} its leader (local process 0) uses to reach the other nodes, and the
 * node's failure state.
 *
 * <p>Failure: the first local process that throws, that returns while another waits in a sync,
 * or whose request cannot be executed, fails the node; so does the news that another node ended
 * (the leader learns it in its round). Every later sync of a local process throws
 * {@link FatalException}; the node's section then ends and the MPI engine's end round carries
 * the news and the causes to the other nodes and to pid 0. The failure state and the exit
 * bookkeeping are the thread group's {@link GroupFailure} and {@link ProcessLedger}, as on the
 * threads engine's team.
 */
final class Node implements Participants {
    final Layout layout;
    final int node;
    /** Local processes, and the position of local process 0 ({@link Layout}: its pid unless a host placed the processes). */
    final int t, base;
    final Link link;
    final HybridSettings settings;
    /** How the node's processes copy node-local requests ({@code lpf.copy}). */
    final BulkCopy copier;
    private final ThreadsPolicy policy;
    final SuperstepBarrier barrier;
    final HybridContext[] members;
    /** outboxes[parity · t + local]: the node-local puts a process queued in supersteps of that parity. */
    final RequestQueue.Outbox[] outboxes;
    /** Per local process: what it entered this round (SYNC or REHOOK), to catch a mismatch. */
    final int[] intent;
    /** The local processes' threads, and who left their SPMD function after how many rounds. */
    final ProcessLedger ledger;
    private final GroupFailure failure;
    /**
     * Whether a sync in which this node queued nothing has its round with the other nodes done by
     * the last local process to arrive at the node barrier (MPI lets any thread call it, and the
     * barrier has a last arriver: the central one, used when the host's threads outnumber its
     * cores) instead of by local process 0 between two barriers: one hand-over between threads
     * per sync instead of two (faster for the empty sync, slower for exchanges with data:
     * docs/performance.md). A sync in which the node queued requests keeps the two barriers and
     * local process 0.
     */
    final boolean roundByLastArriver;
    /** The sync's round as the barrier's last arriver does it (allocated once). */
    final SuperstepBarrier.LastArrival syncRound = this::syncRound;
    /** The node of a rehook's section, handed from the leader to the other local processes. */
    Node child;

    Node(Layout layout, int node, Link link, HybridSettings settings) {
        this.layout = layout;
        this.node = node;
        this.t = layout.threads(node);
        this.base = layout.first()[node];
        this.link = link;
        this.settings = settings;
        this.copier = BulkCopy.of(settings.copy());
        // Waiting is chosen for every thread on this host, not only this JVM's (spinning as if each
        // thread had a core slows the others' JVMs). CPU spreading sees only this node's threads:
        // where other node JVMs already fill the host's cores, moving ours apart only puts each
        // beside another JVM's thread (docs/performance.md).
        this.policy = ThreadsPolicy.forProcesses(settings.competing(t), settings.spin(), settings.yield(),
                settings.spreadsCpus(t), NodeCpus.cpusForNode());
        this.barrier = SuperstepBarrier.create(this, t, settings.barrier(t));
        this.ledger = new ProcessLedger(t, barrier);
        this.failure = new GroupFailure(barrier::wakeAll);
        this.roundByLastArriver = link != null && barrier.hasLastArriver() && link.anyThreadMayRound();
        this.members = new HybridContext[t];
        this.outboxes = new RequestQueue.Outbox[2 * t];
        this.intent = new int[t];
    }

    @Override public ThreadsPolicy policy() { return policy; }

    @Override public Thread thread(int local) { return ledger.thread(local); }

    boolean failed() { return failure.failed(); }

    /** @return the node's failure state (a context keeps it: its sync reads it without going through the node) */
    GroupFailure failure() { return failure; }

    /**
     * The last arriver's work: the round, unless the node queued requests (then local process 0
     * does it, {@link #LEADER_ROUND}) or some local process entered a rehook (each then finds the
     * mismatch itself).
     */
    private int syncRound(int local, int flags) {
        for (int l = 0; l < t; l++) if (intent[l] != HybridContext.SYNC) return 0;
        if ((flags & SuperstepBarrier.QUEUED) != 0) return ALL_SYNCING | LEADER_ROUND;
        return ALL_SYNCING | round(local);
    }

    /**
     * A result bit of {@link #syncRound}: every local process entered this sync (checked while all
     * were inside the barrier; after it a fast process may already have entered its next call).
     */
    static final int ALL_SYNCING = SuperstepBarrier.FIRST_ENGINE_BIT << 1;

    /** A result bit of {@link #syncRound}: the round was left to local process 0 (this node queued requests). */
    static final int LEADER_ROUND = SuperstepBarrier.FIRST_ENGINE_BIT;

    /**
     * The round with the other nodes, done by local process {@code local}; fails the node (and
     * throws its FatalException) if another node ended or the exchange failed.
     *
     * @return QUEUED if some local process has puts from other nodes or replies to apply
     */
    int round(int local) {
        try {
            return link.round() ? SuperstepBarrier.QUEUED : 0;
        } catch (FatalException e) {
            String late = link.deadlineFailure(); // a node did not arrive: it did not end the section
            fail(late != null ? who(local) + " waited in sync " + members[local].superstep() + " for the other nodes: "
                    + Nodes.explain(late) : "another node ended the section: " + e.getMessage(), null);
            throw fatal(local);
        } catch (RuntimeException | Error e) {
            fail(who(local) + " could not exchange with the other nodes for its node: " + e, e);
            throw fatal(local);
        }
    }

    /** @return e.g. {@code "pid 5 (node 1, thread 2)"} */
    String who(int local) { return "pid " + layout.pid(node, local) + " (node " + node + ", thread " + local + ")"; }

    @Override
    public void fail(String reason, Throwable cause) { failure.fail(reason, cause); }

    @Override
    public FatalException fatal(int local) { return failure.followOn(who(local) + " of " + layout.p()); }

    @Override
    public String abandonment(int local, long round) {
        String failed = failure.reason();
        if (failed != null && !barrier.allEntered(round)) return failed;
        int q = ledger.leftBefore(round);
        if (q >= 0) {
            return who(q) + " returned from its SPMD function while " + who(local)
                    + " still synchronises (unequal numbers of syncs)";
        }
        return null;
    }

    /** Records that a local process left its SPMD function, with what it threw (or null). */
    void exit(int local, Throwable thrown) {
        if (thrown != null) failure.processThrew(who(local), thrown);
        ledger.exit(local);
    }

    /** Waits (parking) until every local process has left its SPMD function; an interrupt is kept for the caller. */
    void awaitAllExited() { ledger.awaitAllExited(() -> false); }

    /** @return the node's failure as an exception carrying the causes (to end the node's section with), or null */
    NodeFailed outcome() { return failure.outcome(NodeFailed::new); }
}
