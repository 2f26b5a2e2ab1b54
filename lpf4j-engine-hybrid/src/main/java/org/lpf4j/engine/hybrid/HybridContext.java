package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Machine;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.SyncAttr;
import org.lpf4j.engine.threads.group.GroupFailure;
import org.lpf4j.engine.threads.group.PullApplier;
import org.lpf4j.engine.threads.group.QueuePair;
import org.lpf4j.engine.threads.group.RequestQueue;
import org.lpf4j.engine.threads.group.SuperstepBarrier;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.StagedCapacity;
import org.lpf4j.spi.kit.SuperstepRecorder;
import org.lpf4j.spi.kit.WireCounts;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One process (thread) of a hybrid section. Requests to processes of the same node go to a
 * threads-engine {@link RequestQueue} (indexed by local pid), requests to other nodes to
 * an engine-kit {@link RequestList}. {@link #sync}:
 *
 * <ol>
 *   <li>node-local barrier A (ORs "queued" and "some source is read during the sync");</li>
 *   <li>the leader (local process 0) does the node's round with the other nodes
 *       ({@link Link#round}) while the others wait in barrier B, which the leader enters with
 *       "there is remote work"; when the node queued nothing and MPI lets any thread call it
 *       ({@link Node#roundByLastArriver}), the last process to arrive at barrier A does the round
 *       inside it instead, and there is no barrier B;</li>
 *   <li>each process writes its own memory: node-local puts pulled from the other local
 *       processes' outboxes, then the puts from other nodes in the exchange's order (by source
 *       node; large ones may already have landed during the round), then its gets (node-local ones copied from the owner's memory,
 *       remote ones from the replies); so all writes into a process's memory are done by its
 *       thread, in a fixed order: a serialisation;</li>
 *   <li>barrier C only when some node-local request reads its source during the sync.</li>
 * </ol>
 * An empty superstep costs one node-local barrier (two when MPI is only FUNNELED, or the node
 * barrier is the dissemination one) and one {@code MPI_Allreduce} over the nodes.
 * Combining puts ({@link MsgAttr#combining}) take the same paths; one to another node carries its
 * operator, which must then be {@link java.io.Serializable} (the collectives' operators are).
 * Nothing here allocates on put, get or sync (a combining attribute is serialized once per
 * attribute object and deserialized once per distinct form).
 */
final class HybridContext implements Context, WireCounts.Source {
    static final int SYNC = 1, REHOOK = 2;

    final Node node;
    /** {@code node.failure()}, held here so that sync's check is one load fewer. */
    private final GroupFailure failure;
    private final int local, pid, nprocs;
    private final Args args;
    /** This process's share of its node's processors and of those idle nodes lend it (for nested sections). */
    private final int freeP;
    final SlotRegister register = new SlotRegister();
    private final StagedCapacity queueCapacity = new StagedCapacity("resizeMessageQueue");
    private final QueuePair queues;
    /** Executes, at a sync, the node-local puts to this process and its node-local gets. */
    private final PullApplier pull;
    /** Requests for processes on other nodes; the exchange sets a get's {@code getTag} to its reply's offset in the owner node's reply stream. */
    final RequestList remote = new RequestList();
    private long syncs;
    /** JFR superstep events; puts from other nodes are not counted, so messages in are -1. */
    private final SuperstepRecorder flight = new SuperstepRecorder("hybrid");
    /** What the node's JVM sent to the others at a recorded sync's start (local process 0 only). */
    private final long[] wireBefore = new long[WireCounts.COUNTERS];

    HybridContext(Node node, int local, Args args) {
        this.node = node;
        this.failure = node.failure();
        this.local = local;
        this.pid = node.layout.pid(node.node, local);
        this.nprocs = node.layout.p();
        this.args = args;
        this.cachedAtStart = node.link == null ? null : HybridProbe.cached(node.layout);
        int cores = node.settings.threads() * node.layout.nodeShare(node.node);
        this.freeP = Math.max(1, cores / node.t + (local < cores % node.t ? 1 : 0));
        this.queues = new QueuePair(node.t, node.outboxes, local);
        this.pull = new PullApplier(node.outboxes, node.t, local, l -> node.layout.pid(node.node, l), register, l -> node.members[l].register,
                node.copier);
    }

    /** Combining puts, also between nodes when their operator is {@link java.io.Serializable}. */
    @Override public boolean supports(org.lpf4j.Capability capability) { return capability == org.lpf4j.Capability.COMBINING_PUTS; }

    @Override public int pid() { return pid; }

    @Override public int nprocs() { return nprocs; }

    @Override public Args args() { return args; }

    @Override public long superstep() { return syncs; }

    /**
     * The counts of the node's JVM (the multi-JVM section between the nodes carries every local
     * process's requests to other nodes), at local process 0, which leads the node's round; null at
     * the others and in a node-local section, so that the node is counted once.
     */
    @Override
    public WireCounts wireCounts() { return local == 0 && node.link != null ? WireCounts.of(node.link.nodes()) : null; }

    // ---- put / get ----

    @Override
    public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        RequestQueue q = queues.current(syncs);
        if (q.count() + remote.count() >= queueCapacity.current() && queueCapacity.grows()) q = growQueue(q.count() + remote.count());
        MemorySegment src = RequestChecks.checkPut(register, syncs, pid, nprocs, srcSlot, srcOffset, dstPid, dstSlot,
                dstOffset, size, attr, q.count() + remote.count(), queueCapacity.current(), true);
        int l = node.layout.position(dstPid) - node.base;
        if (l >= 0 && l < node.t) {
            q.addPut(src, srcOffset, l, dstSlot.id(), dstOffset, size, attr);
        } else {
            if (attr.isCombining() && !(attr.combiner() instanceof java.io.Serializable)) {
                throw new IllegalArgumentException(RequestChecks.putCall(pid, nprocs, srcSlot, srcOffset, dstPid, dstSlot,
                        dstOffset, size) + "a combining put to another node (pid " + dstPid + " is on node "
                        + node.layout.nodeOf(dstPid) + ", pid " + pid + " on node " + node.node + ") carries its operator to"
                        + " that JVM, so the operator must be Serializable, which " + attr.combiner() + " is not");
            }
            remote.addPut(src, srcOffset, dstPid, dstSlot.id(), dstOffset, size, attr, -1); // the exchange interns the attribute
        }
    }

    @Override
    public void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        RequestQueue q = queues.current(syncs);
        if (q.count() + remote.count() >= queueCapacity.current() && queueCapacity.grows()) q = growQueue(q.count() + remote.count());
        MemorySegment dst = RequestChecks.checkGet(register, syncs, pid, nprocs, srcPid, srcSlot, srcOffset, dstSlot,
                dstOffset, size, attr, q.count() + remote.count(), queueCapacity.current());
        int l = node.layout.position(srcPid) - node.base;
        if (l >= 0 && l < node.t) q.addGet(l, srcSlot.id(), srcOffset, dst, dstOffset, size);
        else remote.addGet(srcPid, srcSlot.id(), srcOffset, dst, dstOffset, size);
    }

    // ---- sync ----

    @Override
    public void sync(SyncAttr attr) {
        Objects.requireNonNull(attr, "sync: attr");
        enter(SYNC);
        RequestQueue mine = queues.current(syncs);
        boolean recording = flight.begin();
        WireCounts wire = recording ? wireCounts() : null;
        if (recording) flight.out(mine.count() + remote.count(), mine.queuedBytes() + SuperstepRecorder.bytes(remote));
        if (wire != null) wire.read(wireBefore);
        int flags = (mine.count() > 0 ? SuperstepBarrier.QUEUED : 0) | (mine.unbuffered() > 0 ? SuperstepBarrier.UNBUFFERED : 0);
        int all;
        if (node.roundByLastArriver) {
            all = node.barrier.await(local, flags, node.syncRound);
            if ((all & Node.ALL_SYNCING) == 0) checkIntents(SYNC); // someone entered a rehook: its intent stays
            if ((all & Node.LEADER_ROUND) != 0) all |= leaderRound();
            all &= ~(Node.ALL_SYNCING | Node.LEADER_ROUND);
        } else {
            all = node.barrier.await(local, flags);
            checkIntents(SYNC);
            all |= leaderRound();
        }
        if (all != 0) {
            try {
                executeRequestsToMe((int) syncs & 1);
            } catch (RuntimeException | Error e) {
                node.fail(node.who(local) + " could not execute a request: " + e, e);
            }
            if ((all & SuperstepBarrier.UNBUFFERED) != 0) node.barrier.await(local, 0);
            if (failure.failed()) throw node.fatal(local);
        }
        if (wire != null) flight.wire(wireBefore, wire);
        if (recording) flight.commit(pid, nprocs, syncs);
        syncs++;
        queues.advance(syncs);
        remote.clear();
        register.capacity().applyAtSync();
        queueCapacity.applyAtSync();
    }

    private void enter(int what) {
        if (failure.failed()) throw node.fatal(local);
        node.intent[local] = what; // published to the others by barrier A
    }

    /** After barrier A: every local process must have entered the same call (sync vs rehook). */
    private void checkIntents(int mine) {
        for (int l = 0; l < node.t; l++) {
            if (node.intent[l] != mine) {
                node.fail(node.who(l) + (node.intent[l] == REHOOK ? " called rehook" : " called sync") + " while "
                        + node.who(local) + (mine == REHOOK ? " called rehook" : " called sync")
                        + " (sync and rehook are collective)", null);
                throw node.fatal(local);
            }
        }
    }

    /**
     * Barrier B: the leader first does the node's round with the other nodes.
     *
     * @return QUEUED if there is remote work to apply
     */
    private int leaderRound() {
        if (node.link == null) return 0; // a node-local section (HybridProbe's intra-node level): no other node
        if (local != 0) return node.barrier.await(local, 0);
        return node.barrier.await(local, node.round(local));
    }

    /** Node-local puts to this process, then remote puts to it, then its gets (node-local ones, then remote ones). */
    private void executeRequestsToMe(int parity) {
        pull.applyPuts(syncs);
        Link link = node.link;
        if (link != null) link.applyPuts(local);
        pull.applyGets(queues.ofParity(parity));
        if (remote.gets > 0) link.applyReplies(local);
    }

    // ---- registration ----

    @Override
    public Memslot registerGlobal(MemorySegment segment) { return register.registerGlobalShared(segment, syncs, pid, nprocs); }

    @Override
    public Memslot registerLocal(MemorySegment segment) { return register.registerLocalShared(segment, pid, nprocs); }

    @Override
    public void deregister(Memslot slot) { register.deregister(slot, pid, syncs); }

    // ---- capacities ----

    @Override
    public void resizeMemoryRegister(long maxRegs) { register.resize(pid, maxRegs); }

    @Override
    public void resizeMessageQueue(long maxMsgs) {
        int n = queueCapacity.entries(pid, maxMsgs, 2 * RequestQueue.bytesFor(1) + 2 * 64, RequestQueue.MAX_CAPACITY);
        try {
            queues.ensure(n, syncs);
            remote.ensure(n);
        } catch (OutOfMemoryError e) {
            throw queueCapacity.outOfMemory(pid, maxMsgs, e);
        }
        queueCapacity.stage(n);
    }

    /**
     * {@code lpf.capacity=grow}: a full queue grows now (twice), the only allocation of a put or
     * get, and only then.
     *
     * @return the current local queue, grown
     */
    private RequestQueue growQueue(int used) {
        int staged = queueCapacity.pending(), n = queueCapacity.grownFor(used, RequestQueue.MAX_CAPACITY);
        try {
            queues.ensure(n, syncs);
            remote.ensure(n);
        } catch (OutOfMemoryError e) {
            throw queueCapacity.outOfMemory(pid, n, e);
        }
        queueCapacity.grow(n, staged);
        return queues.current(syncs);
    }

    // ---- sections ----

    /** The figures this JVM had cached for this section's layout when the section started; only pid 0's count ({@link HybridProbe}). */
    HybridProbe.Figures cachedAtStart;
    /** The figures every process of the section agreed on at its first probe, or null before it. */
    HybridProbe.Figures agreed;

    @Override
    public Machine probe() {
        return HybridProbe.inSection(this);
    }

    /** @return this process's index on its node */
    int local() { return local; }

    /** @return this process's share of its node's processors and of those idle nodes lend it ({@link Layout#nodeShare}) */
    int freeP() { return freeP; }

    /**
     * A nested exec runs in this JVM on the threads engine, on this process's share of the node's
     * processors and of those idle nodes lend ({@code probe().freeP()}, as the MPI engine counts
     * idle ranks); the threads engine's machine size must allow it:
     * {@code lpf.engine.threads.procs}, which {@code lpf run --engine hybrid} sets.
     */
    @Override
    public void exec(int p, Spmd spmd, Args args) {
        RequestChecks.checkExec(pid, p, spmd, args);
        if (failure.failed()) throw node.fatal(local);
        Lpf.root("threads").exec(Math.min(p, freeP), spmd, args);
    }

    @Override
    public void rehook(Spmd spmd, Args args) {
        RequestChecks.checkRehook(spmd, args);
        if (node.link == null) throw new UnsupportedOperationException("rehook in a node-local probe section");
        enter(REHOOK);
        node.barrier.await(local, 0);
        checkIntents(REHOOK);
        Rehook.run(this, local, spmd, args);
    }

    @Override
    public String toString() {
        return "HybridContext[" + node.who(local) + " of " + nprocs + ", superstep " + syncs + "]";
    }
}
