package org.lpf4j.engine.threads;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
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
import org.lpf4j.spi.kit.ProbeHarness;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.StagedCapacity;
import org.lpf4j.spi.kit.SuperstepRecorder;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One process of a threads-engine section (or the root context, a team of one).
 *
 * <p>Puts go to this process's {@link RequestQueue} (mailbox line and chained records per
 * destination pid, small payloads copied at once), gets to local arrays. At a sync, after a
 * barrier that ORs whether anyone queued anything and whether any request reads its source
 * during the sync, each process <em>pulls</em>: it executes every put whose destination is its
 * own memory (reading the other processes' outboxes for its pid) and its own gets, so all
 * writes into one process's memory are done by that process's thread — a serialisation of
 * conflicting writes for free. Combining puts ({@link MsgAttr#combining}) take the same path
 * and apply their operator instead of copying. An empty superstep, or one of only buffered
 * puts, costs one barrier; otherwise a second barrier protects the sources until every copy is
 * done. Nothing here allocates on put, get or sync.
 */
final class ThreadsContext implements Context {

    final Team team;
    /** {@code team.failure()}, held here so that sync's check is one load fewer. */
    private final GroupFailure failure;
    private final int pid;
    private final int nprocs;
    private final int freeP;
    private final Args args;
    private final boolean root;
    /** Executes, at a sync, the puts to this process and its gets ({@code lpf.copy} copies them). */
    private final PullApplier pull;

    /** This process's memory register (global and local slots, staged capacity). */
    final SlotRegister register = new SlotRegister();

    // ---- message queue: two RequestQueues, alternating by superstep parity ----
    private final StagedCapacity queueCapacity = new StagedCapacity("resizeMessageQueue");
    /** Two queues alternating by superstep parity; peers may still read last superstep's. */
    private final QueuePair queues;

    private long syncs;
    /** JFR superstep events; checked once per sync, nothing counted unless a recording is on. */
    private final SuperstepRecorder flight = new SuperstepRecorder("threads");
    /** Puts of non-zero size, and their bytes, this process applied at its last sync. */
    private long putsIn, bytesIn;
    /** rehook calls made so far: numbers the rounds of team.rehooks. */
    private long rehooks;

    ThreadsContext(Team team, int pid, int freeP, Args args, boolean root) {
        this.team = team;
        this.failure = team.failure();
        this.pid = pid;
        this.nprocs = team.p;
        this.freeP = freeP;
        this.args = args;
        this.root = root;
        this.queues = new QueuePair(nprocs, team.outboxes, pid);
        this.pull = new PullApplier(team.outboxes, nprocs, pid, q -> q, register, q -> team.members[q].register,
                team.settings.copy());
    }

    @Override public int pid() { return pid; }

    @Override public int nprocs() { return nprocs; }

    @Override public Args args() { return args; }

    @Override public long superstep() { return syncs; }

    /** Combining puts are supported. */
    @Override public boolean supports(org.lpf4j.Capability capability) { return capability == org.lpf4j.Capability.COMBINING_PUTS; }

    // =====================================================================================
    // put / get: checks, then a few array stores
    // =====================================================================================

    @Override
    public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size,
                    MsgAttr attr) {
        RequestQueue q = queues.current(syncs);
        if (q.count() >= queueCapacity.current() && queueCapacity.grows()) q = growQueue(q.count());
        MemorySegment src = RequestChecks.checkPut(register, syncs, pid, nprocs, srcSlot, srcOffset, dstPid, dstSlot,
                dstOffset, size, attr, q.count(), queueCapacity.current(), true);
        q.addPut(src, srcOffset, dstPid, dstSlot.id(), dstOffset, size, attr);
    }

    @Override
    public void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size,
                    MsgAttr attr) {
        RequestQueue q = queues.current(syncs);
        if (q.count() >= queueCapacity.current() && queueCapacity.grows()) q = growQueue(q.count());
        MemorySegment dst = RequestChecks.checkGet(register, syncs, pid, nprocs, srcPid, srcSlot, srcOffset, dstSlot,
                dstOffset, size, attr, q.count(), queueCapacity.current());
        q.addGet(srcPid, srcSlot.id(), srcOffset, dst, dstOffset, size);
    }

    /**
     * {@code lpf.capacity=grow}: a full queue grows now (twice, or what the engine can index) and
     * the request goes on; the only allocation of a put or get, and only then.
     *
     * @return the current queue, grown
     */
    private RequestQueue growQueue(int used) {
        int staged = queueCapacity.pending(), n = queueCapacity.grownFor(used, RequestQueue.MAX_CAPACITY);
        try {
            queues.ensure(n, syncs);
        } catch (OutOfMemoryError e) {
            throw queueCapacity.outOfMemory(pid, n, e);
        }
        queueCapacity.grow(n, staged);
        return queues.current(syncs);
    }

    // =====================================================================================
    // sync
    // =====================================================================================

    @Override
    public void sync(SyncAttr attr) {
        Objects.requireNonNull(attr, "sync: attr");
        if (failure.failed()) throw team.fatal(pid);
        team.entersSync(pid, syncs + 1);
        RequestQueue mine = queues.current(syncs);
        boolean recording = flight.begin();
        if (recording) flight.out(mine.count(), mine.queuedBytes());
        putsIn = 0;
        bytesIn = 0;
        // The barrier ORs, over all processes, whether anyone queued anything and whether any
        // request reads its source during the sync: so everyone learns both facts at once.
        int all = team.barrier.await(pid, (mine.count() > 0 ? SuperstepBarrier.QUEUED : 0)
                | (mine.unbuffered() > 0 ? SuperstepBarrier.UNBUFFERED : 0));
        if (all != 0) {
            try {
                executeRequestsToMe((int) syncs & 1);
            } catch (RuntimeException | Error e) {
                team.fail("pid " + pid + " could not execute a request: " + e, e);
            }
            if ((all & SuperstepBarrier.UNBUFFERED) != 0) {
                // Sources (and the memory gets read) must stay untouched until every copy is done.
                team.barrier.await(pid, 0);
            }
            // A request another process could not execute fails everyone's sync, not just its own.
            if (failure.failed()) throw team.fatal(pid);
        }
        if (recording) {
            flight.in(putsIn, bytesIn);
            flight.commit(pid, nprocs, syncs);
        }
        syncs++;
        queues.advance(syncs);
        register.capacity().applyAtSync();
        queueCapacity.applyAtSync();
    }

    /** Executes every put whose destination is this process and every get this process made. */
    private void executeRequestsToMe(int parity) {
        pull.applyPuts(syncs);
        putsIn = pull.putsIn();
        bytesIn = pull.bytesIn();
        pull.applyGets(queues.ofParity(parity));
    }

    // =====================================================================================
    // registration
    // =====================================================================================

    @Override
    public Memslot registerGlobal(MemorySegment segment) { return register.registerGlobalShared(segment, syncs, pid, nprocs); }

    @Override
    public Memslot registerLocal(MemorySegment segment) { return register.registerLocalShared(segment, pid, nprocs); }

    @Override
    public void deregister(Memslot slot) {
        register.deregister(slot, pid, syncs);
    }

    // =====================================================================================
    // capacities
    // =====================================================================================

    @Override
    public void resizeMemoryRegister(long maxRegs) {
        register.resize(pid, maxRegs);
    }

    @Override
    public void resizeMessageQueue(long maxMsgs) {
        // The estimate counts heap only (two queues' arrays); the native records are allocated
        // and an OutOfMemoryError of either becomes LpfOutOfMemoryException with no effect.
        int n = queueCapacity.entries(pid, maxMsgs, 2 * RequestQueue.heapBytesFor(1), RequestQueue.MAX_CAPACITY);
        try {
            queues.ensure(n, syncs);
        } catch (OutOfMemoryError e) {
            throw queueCapacity.outOfMemory(pid, maxMsgs, e);
        }
        queueCapacity.stage(n); // shrinking (or staying) always succeeds
    }

    // =====================================================================================
    // sections
    // =====================================================================================

    @Override
    public Machine probe() {
        return ProbeHarness.machine(ThreadsEngineProvider.NAME, root ? freeP : nprocs, freeP,
                team.settings.probeMillis() * 1_000_000L, (p, spmd) -> Sections.exec(p, p, spmd, Args.NONE, team.settings));
    }

    @Override
    public void exec(int p, Spmd spmd, Args args) {
        RequestChecks.checkExec(pid, p, spmd, args);
        if (failure.failed()) throw team.fatal(pid);
        Sections.exec(Shortfall.granted(p, root, freeP, team.settings), Math.max(1, freeP), spmd, args, team.settings);
    }

    @Override
    public void rehook(Spmd spmd, Args args) {
        RequestChecks.checkRehook(spmd, args);
        if (failure.failed()) throw team.fatal(pid);
        Team child = team.rehooks.teamFor(++rehooks);
        // While inside, this process takes part in no sync of this team: a peer waiting in one
        // sees that and fails instead of hanging (and the child watches this team likewise).
        team.enterRehook(pid);
        FatalException failure;
        try {
            failure = Sections.runMember(child, pid, freeP, spmd, args, "rehook", () -> team.leaveRehook(pid));
        } catch (RuntimeException | Error e) { // could not even join the child (no memory)
            team.leaveRehook(pid);
            team.fail("pid " + pid + " could not enter rehook: " + e, e);
            throw e;
        }
        if (failure != null) {
            team.fail("a rehooked section failed: " + failure.getMessage(), failure.getCause());
            throw failure;
        }
    }


    @Override
    public String toString() {
        return "ThreadsContext[pid " + pid + " of " + nprocs + ", team " + team.id + ", superstep " + syncs + "]";
    }
}
