package org.lpf4j.engine.hybrid;

import org.lpf4j.Context;
import org.lpf4j.superstep.NodeExchange;
import org.lpf4j.superstep.NodeRequests;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.StartCollectives;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * A node's way to the other nodes: the requests its processes queued for other nodes, handed to
 * the superstep exchange ({@link NodeExchange}) of the engine between the nodes (MPI or net) in
 * the node-level section's sync. The exchange is that engine's own (one packed stream per pair of
 * nodes, sent before the sync's round up to its {@code pairsInRoundUpTo} nodes, large puts from
 * the source memory straight into the destination, combining operators shipped once); this class
 * only says how pids map to nodes and local processes. The hybrid engine calls no MPI or socket
 * itself.
 *
 * <p>An empty superstep costs that sync's one allreduce over the nodes. The sync is also where a
 * node that ended is noticed: it throws {@link org.lpf4j.FatalException}.
 */
final class Link implements NodeRequests {
    private final Context nodes;
    private final NodeExchange exchange;
    private Node local;

    /** @param nodes the node-level context (a section of the engine between the nodes, pid = node) */
    Link(Context nodes) {
        this.nodes = nodes;
        this.exchange = NodeExchange.of(nodes);
    }

    /** Binds the link to the node whose processes' requests it carries (once, before any round). */
    void bind(Node node) { this.local = node; }

    /** @return the node-level context (a section of the engine between the nodes, pid = node) */
    Context nodes() { return nodes; }

    /**
     * @return whether any local process may do the round, not only local process 0 (the engine
     *         between the nodes allows calls from any thread: MPI granted {@code MPI_THREAD_SERIALIZED}
     *         or more, or the net engine)
     */
    boolean anyThreadMayRound() { return exchange.anyThreadMaySync(); }

    /**
     * The node's round, by the leader or by whichever local process the barrier lets do it (all
     * have arrived, so their requests are published). Throws {@link org.lpf4j.FatalException} when
     * another node has ended.
     *
     * @return whether any local process may have puts from other nodes or replies to apply
     */
    boolean round() { return exchange.sync(this); }

    /** @return why the last {@link #round} threw when nodes did not reach it in time (the sync deadline of the engine between the nodes, e.g. {@code lpf.engine.mpi.syncTimeout}), or null */
    String deadlineFailure() { return exchange.deadlineFailure(); }

    /** Local process {@code l}'s part after the round: the puts from other nodes to it, in the exchange's order. */
    void applyPuts(int l) { exchange.applyPuts(l, local.members[l].register); }

    /** Local process {@code l}'s part after its node-local gets: the replies to its gets from other nodes. */
    void applyReplies(int l) { exchange.applyReplies(local.members[l].remote, this); }

    // ---- NodeRequests: ranks are nodes ----

    @Override public int processes() { return local.t; }

    @Override public RequestList requests(int l) { return local.members[l].remote; }

    @Override public SlotRegister register(int l) { return local.members[l].register; }

    @Override public int rankOf(int pid) { return local.layout.nodeOf(pid); }

    @Override public int localOf(int pid) { return local.layout.localOf(pid); }

    @Override public int pidOf(int rank, int l) { return local.layout.pid(rank, l); }

    /**
     * Collective over the nodes, at the start of a section: gathers every node's thread count and
     * host name ({@link StartCollectives#allgather} in the node-level section, five syncs) and fails, on every node alike, if
     * a hook's thread counts differ (its ranks gave different {@code threadsPerNode}) or, when
     * {@code hosts} is set, if two nodes run on the same host (the hybrid engine runs one JVM per
     * node; {@code lpf.engine.hybrid.nodes=rank} lifts that check for tests on one machine).
     *
     * @param threads this node's processes
     * @param call    the hook call to name when the thread counts differ, or null for an exec (whose
     *                layout may give nodes different counts on purpose: 5 on 3 nodes is 2 + 2 + 1)
     */
    void checkNodes(int threads, boolean hosts, String call) {
        int n = nodes.nprocs(), me = nodes.pid();
        byte[] host = HostName.of().getBytes(StandardCharsets.UTF_8);
        byte[] own = new byte[4 + host.length];
        MemorySegment.ofArray(own).set(JAVA_INT_UNALIGNED, 0, threads);
        System.arraycopy(host, 0, own, 4, host.length);
        byte[][] facts = StartCollectives.allgather(nodes, own);
        int[] threadCounts = new int[n];
        String[] hostNames = new String[n];
        for (int q = 0; q < n; q++) {
            threadCounts[q] = MemorySegment.ofArray(facts[q]).get(JAVA_INT_UNALIGNED, 0);
            hostNames[q] = new String(facts[q], 4, facts[q].length - 4, StandardCharsets.UTF_8);
        }
        RuntimeException refused = refusal(threadCounts, hostNames, hosts, call, me);
        if (refused != null) throw refused;
    }

    /**
     * What {@link #checkNodes} decides from the gathered facts, the same on every node.
     *
     * @param threads per node, its processes
     * @param hosts   per node, its host name
     * @param oneNodePerHost whether two nodes on one host are refused
     * @param call    the hook call (its thread counts must agree), or null for an exec
     * @param me      this node, for the message
     * @return the refusal, or null
     */
    static RuntimeException refusal(int[] threads, String[] hosts, boolean oneNodePerHost, String call, int me) {
        if (call != null) {
            int least = Integer.MAX_VALUE, most = 0;
            for (int t : threads) {
                least = Math.min(least, t);
                most = Math.max(most, t);
            }
            if (least != most) {
                return new IllegalArgumentException(call + " at rank " + me + ": the ranks run between " + least + " and " + most
                        + " threads per node (this rank " + threads[me] + "); every rank must give the same threadsPerNode");
            }
        }
        if (!oneNodePerHost) return null;
        Map<String, List<Integer>> byHost = new TreeMap<>();
        for (int q = 0; q < hosts.length; q++) byHost.computeIfAbsent(hosts[q], x -> new ArrayList<>()).add(q);
        for (var e : byHost.entrySet()) {
            if (e.getValue().size() > 1) {
                return new IllegalStateException("hybrid engine: node JVMs " + e.getValue() + " all run on host " + e.getKey()
                        + "; this engine runs one JVM per node with threads inside (launch with mpirun --map-by ppr:1:node,"
                        + " or lpf run --engine hybrid --nodes N), or set lpf.engine.hybrid.nodes=rank to make every rank"
                        + " a node of its own (N JVMs on one machine standing for N nodes)");
            }
        }
        return null;
    }
}
