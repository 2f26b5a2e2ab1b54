package org.lpf4j.engine.threads;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Machine;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.SyncAttr;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
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
    private static final long REGISTER_ENTRY_BYTES = 48;
    /** An unstarted thread: segments it cannot access are confined to some other thread. */
    private static final Thread FOREIGN_THREAD = new Thread(() -> { }, "lpf-access-check");

    final Team team;
    private final int pid;
    private final int nprocs;
    private final int freeP;
    private final Args args;
    private final boolean root;

    // ---- memory register: global and local slots are numbered independently ----
    private int regCapacity;          // effective this superstep
    private int regPendingCapacity;   // effective after the next sync
    private int regUsed;
    Memslot[] globalSlots = new Memslot[0];
    MemorySegment[] globalSegments = new MemorySegment[0];
    /** Read-only twins of the registered segments: what puts read from (and combiners see). */
    private MemorySegment[] globalSources = new MemorySegment[0];
    private long[] globalActiveFromSync = new long[0];
    private int[] freeGlobalIds = new int[0];
    private int freeGlobalCount;
    private int nextGlobalId;
    private Memslot[] localSlots = new Memslot[0];
    private MemorySegment[] localSegments = new MemorySegment[0];
    private MemorySegment[] localSources = new MemorySegment[0];
    private int[] freeLocalIds = new int[0];
    private int freeLocalCount;
    private int nextLocalId;

    // ---- message queue: two RequestQueues, alternating by superstep parity ----
    private int queueCapacity;
    private int queuePendingCapacity;
    /** queues[syncs & 1] takes this superstep's requests; the other may still be read by peers. */
    final RequestQueue[] queues;
    /** A larger replacement for the other queue, swapped in when it becomes current. */
    private RequestQueue pendingOther;

    private long syncs;
    /** rehook calls made so far: numbers the rounds of team.rehooks. */
    private long rehooks;

    ThreadsContext(Team team, int pid, int freeP, Args args, boolean root) {
        this.team = team;
        this.pid = pid;
        this.nprocs = team.p;
        this.freeP = freeP;
        this.args = args;
        this.root = root;
        this.queues = new RequestQueue[] {new RequestQueue(0, nprocs), new RequestQueue(0, nprocs)};
        publish(0);
        publish(1);
    }

    /** Makes queue {@code parity}'s outbox the one peers read in supersteps of that parity. */
    private void publish(int parity) {
        team.outboxes[parity * nprocs + pid] = queues[parity].outbox;
    }

    @Override public int pid() { return pid; }

    @Override public int nprocs() { return nprocs; }

    @Override public Args args() { return args; }

    @Override public long superstep() { return syncs; }

    // =====================================================================================
    // put / get: checks, then a few array stores
    // =====================================================================================

    @Override
    public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size,
                    MsgAttr attr) {
        MemorySegment src = localArea(srcSlot, "put", "srcSlot", true);
        if (dstPid < 0 || dstPid >= nprocs || srcOffset < 0 || dstOffset < 0 || size < 0
                || srcOffset > src.byteSize() - size || !isUsableGlobal(dstSlot)
                || queues[(int) syncs & 1].count >= queueCapacity
                || attr != MsgAttr.DEFAULT && !isValidCombining(attr, size)) {
            throw putError(srcSlot, srcOffset, dstPid, dstSlot, dstOffset, size, attr, src);
        }
        queues[(int) syncs & 1].addPut(src, srcOffset, dstPid, dstSlot.id(), dstOffset, size, attr);
    }

    @Override
    public void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size,
                    MsgAttr attr) {
        MemorySegment dst = localArea(dstSlot, "get", "dstSlot", false);
        if (srcPid < 0 || srcPid >= nprocs || srcOffset < 0 || dstOffset < 0 || size < 0
                || dstOffset > dst.byteSize() - size || !isUsableGlobal(srcSlot)
                || queues[(int) syncs & 1].count >= queueCapacity
                || attr != MsgAttr.DEFAULT || dst.isReadOnly()) {
            throw getError(srcPid, srcSlot, srcOffset, dstSlot, dstOffset, size, attr, dst);
        }
        queues[(int) syncs & 1].addGet(srcPid, srcSlot.id(), srcOffset, dst, dstOffset, size);
    }

    /**
     * The segment of a slot this process may use locally now (its read-only twin when it is a
     * source), or an exception naming the call.
     */
    private MemorySegment localArea(Memslot slot, String call, String what, boolean source) {
        if (slot != null && slot.owner() == this) {
            int id = slot.id();
            if (slot.isGlobal()) {
                if (id >= 0 && id < globalSlots.length && globalSlots[id] == slot && globalActiveFromSync[id] <= syncs) {
                    return source ? globalSources[id] : globalSegments[id];
                }
            } else if (id >= 0 && id < localSlots.length && localSlots[id] == slot) {
                return source ? localSources[id] : localSegments[id];
            }
        }
        throw new IllegalArgumentException(call + " at pid " + pid + ": " + what + " " + describeUnusable(slot));
    }

    /** A combining put (see {@link MsgAttr#combining}) of whole elements. */
    private static boolean isValidCombining(MsgAttr attr, long size) {
        return attr != null && attr.isCombining() && size % attr.elementSize() == 0;
    }

    private boolean isUsableGlobal(Memslot slot) {
        if (slot == null || slot.owner() != this || !slot.isGlobal()) return false;
        int id = slot.id();
        return id >= 0 && id < globalSlots.length && globalSlots[id] == slot && globalActiveFromSync[id] <= syncs;
    }

    private String describeUnusable(Memslot slot) {
        if (slot == null) return "is null";
        if (slot.owner() != this) return slot + " belongs to another context (slots are per context and process)";
        int id = slot.id();
        if (id < 0 || id >= (slot.isGlobal() ? globalSlots : localSlots).length) {
            return slot + " has an id this context never issued";
        }
        if (slot.isGlobal()) {
            if (globalSlots[id] != slot) return slot + " is deregistered";
            if (globalActiveFromSync[id] > syncs) {
                return slot + " was registered globally in this superstep and is usable only after the next sync";
            }
        } else if (localSlots[id] != slot) {
            return slot + " is deregistered";
        }
        return slot + " is valid";
    }

    private RuntimeException putError(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset,
                                      long size, MsgAttr attr, MemorySegment src) {
        String call = "put(srcSlot=" + srcSlot + ", srcOffset=" + srcOffset + ", dstPid=" + dstPid + ", dstSlot="
                + dstSlot + ", dstOffset=" + dstOffset + ", size=" + size + ") at pid " + pid + " of " + nprocs + ": ";
        if (dstPid < 0 || dstPid >= nprocs) return new IndexOutOfBoundsException(call + "dstPid not in [0, " + nprocs + ")");
        if (size < 0) return new IllegalArgumentException(call + "negative size");
        if (srcOffset < 0) return new IllegalArgumentException(call + "negative srcOffset");
        if (dstOffset < 0) return new IllegalArgumentException(call + "negative dstOffset");
        if (srcOffset > src.byteSize() - size) {
            return new IndexOutOfBoundsException(call + "source area [" + srcOffset + ", " + (srcOffset + size)
                    + ") exceeds the " + src.byteSize() + " registered bytes");
        }
        if (dstSlot != null && dstSlot.owner() == this && !dstSlot.isGlobal()) {
            return new IllegalArgumentException(call + "dstSlot is a local slot; a remote destination must be registered globally");
        }
        if (!isUsableGlobal(dstSlot)) return new IllegalArgumentException(call + "dstSlot " + describeUnusable(dstSlot));
        if (attr != MsgAttr.DEFAULT && !isValidCombining(attr, size)) {
            return new IllegalArgumentException(call + (attr != null && attr.isCombining()
                    ? "size is not a multiple of the element size " + attr.elementSize() + " of " + attr
                    : "unsupported message attribute " + attr));
        }
        return new IllegalStateException(call + "message queue full: " + queueCapacity
                + " requests this superstep (resizeMessageQueue, then sync, to raise it)");
    }

    private RuntimeException getError(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset,
                                      long size, MsgAttr attr, MemorySegment dst) {
        String call = "get(srcPid=" + srcPid + ", srcSlot=" + srcSlot + ", srcOffset=" + srcOffset + ", dstSlot="
                + dstSlot + ", dstOffset=" + dstOffset + ", size=" + size + ") at pid " + pid + " of " + nprocs + ": ";
        if (srcPid < 0 || srcPid >= nprocs) return new IndexOutOfBoundsException(call + "srcPid not in [0, " + nprocs + ")");
        if (size < 0) return new IllegalArgumentException(call + "negative size");
        if (srcOffset < 0) return new IllegalArgumentException(call + "negative srcOffset");
        if (dstOffset < 0) return new IllegalArgumentException(call + "negative dstOffset");
        if (dstOffset > dst.byteSize() - size) {
            return new IndexOutOfBoundsException(call + "destination area [" + dstOffset + ", " + (dstOffset + size)
                    + ") exceeds the " + dst.byteSize() + " registered bytes");
        }
        if (dst.isReadOnly()) return new IllegalArgumentException(call + "dstSlot is a read-only segment");
        if (srcSlot != null && srcSlot.owner() == this && !srcSlot.isGlobal()) {
            return new IllegalArgumentException(call + "srcSlot is a local slot; a remote source must be registered globally");
        }
        if (!isUsableGlobal(srcSlot)) return new IllegalArgumentException(call + "srcSlot " + describeUnusable(srcSlot));
        if (attr != MsgAttr.DEFAULT) {
            return new IllegalArgumentException(call + "unsupported message attribute " + attr
                    + (attr != null && attr.isCombining() ? " (combining applies to put only)" : ""));
        }
        return new IllegalStateException(call + "message queue full: " + queueCapacity
                + " requests this superstep (resizeMessageQueue, then sync, to raise it)");
    }

    // =====================================================================================
    // sync
    // =====================================================================================

    @Override
    public void sync(SyncAttr attr) {
        Objects.requireNonNull(attr, "sync: attr");
        if (team.failed()) throw team.fatal(pid);
        RequestQueue mine = queues[(int) syncs & 1];
        // The barrier ORs, over all processes, whether anyone queued anything and whether any
        // request reads its source during the sync: so everyone learns both facts at once.
        int all = team.barrier.await(pid, (mine.count > 0 ? SuperstepBarrier.QUEUED : 0)
                | (mine.unbuffered > 0 ? SuperstepBarrier.UNBUFFERED : 0));
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
            if (team.failed()) throw team.fatal(pid);
        }
        syncs++;
        // The queue of superstep syncs - 1 was last read before this sync's first barrier.
        int next = (int) syncs & 1;
        if (pendingOther != null && pendingOther.capacity > queues[next].capacity) {
            queues[next] = pendingOther;
            publish(next);
        }
        queues[next].startSuperstep(syncs);
        pendingOther = null;
        regCapacity = regPendingCapacity;
        queueCapacity = queuePendingCapacity;
    }

    /** Executes every put whose destination is this process and every get this process made. */
    private void executeRequestsToMe(int parity) {
        final RequestQueue.Outbox[] outboxes = team.outboxes;
        final int base = parity * nprocs;
        for (int s = 0; s < nprocs; s++) {
            RequestQueue.Outbox from = outboxes[base + s];
            for (long r = from.first(pid, syncs); r != RequestQueue.NONE; r = from.next(r)) {
                long size = from.size(r);
                if (size == 0) continue;
                int slot = from.slot(r);
                MemorySegment dst = slot < globalSegments.length ? globalSegments[slot] : null;
                long dstOffset = from.dstOffset(r);
                if (dst == null || dstOffset > dst.byteSize() - size || dst.isReadOnly()) {
                    throw putTooFar(s, slot, dstOffset, size, dst);
                }
                MsgAttr combining = from.attr(r);
                if (combining == null) {
                    MemorySegment.copy(from.source(r), from.sourceOffset(r), dst, dstOffset, size);
                } else {
                    combining.combineInto(from.source(r), from.sourceOffset(r), dst, dstOffset, size);
                }
            }
        }
        RequestQueue own = queues[parity];
        final ThreadsContext[] members = team.members;
        for (int g = 0, n = own.gets(); g < n; g++) {
            long size = own.getSize(g);
            if (size == 0) continue;
            int owner = own.getPid(g);
            ThreadsContext from = members[owner];
            int slot = own.getSlot(g);
            MemorySegment src = slot < from.globalSegments.length ? from.globalSegments[slot] : null;
            long srcOffset = own.getSrcOffset(g);
            if (src == null || srcOffset > src.byteSize() - size) {
                throw new IndexOutOfBoundsException("get by pid " + pid + " from pid " + owner + " global#" + slot
                        + " [" + srcOffset + ", " + (srcOffset + size) + "): "
                        + (src == null ? "slot not registered at pid " + owner
                        : "exceeds the " + src.byteSize() + " bytes pid " + owner + " registered"));
            }
            MemorySegment.copy(src, srcOffset, own.getDestination(g), own.getDstOffset(g), size);
        }
    }

    private IndexOutOfBoundsException putTooFar(int from, int slot, long dstOffset, long size, MemorySegment dst) {
        return new IndexOutOfBoundsException("put from pid " + from + " to pid " + pid + " global#" + slot
                + " [" + dstOffset + ", " + (dstOffset + size) + "): "
                + (dst == null ? "slot not registered at pid " + pid
                : dst.isReadOnly() && dstOffset <= dst.byteSize() - size
                ? "pid " + pid + " registered a read-only segment there"
                : "exceeds the " + dst.byteSize() + " bytes pid " + pid + " registered"));
    }

    // =====================================================================================
    // registration
    // =====================================================================================

    @Override
    public Memslot registerGlobal(MemorySegment segment) {
        checkRegistrable(segment, "registerGlobal");
        int id = freeGlobalCount > 0 ? freeGlobalIds[--freeGlobalCount] : nextGlobalId++;
        Memslot slot = new Memslot(this, id, true, segment.byteSize());
        globalSlots[id] = slot;
        globalSegments[id] = segment;
        globalSources[id] = segment.asReadOnly();
        globalActiveFromSync[id] = syncs + 1;
        regUsed++;
        return slot;
    }

    @Override
    public Memslot registerLocal(MemorySegment segment) {
        checkRegistrable(segment, "registerLocal");
        int id = freeLocalCount > 0 ? freeLocalIds[--freeLocalCount] : nextLocalId++;
        Memslot slot = new Memslot(this, id, false, segment.byteSize());
        localSlots[id] = slot;
        localSegments[id] = segment;
        localSources[id] = segment.asReadOnly();
        regUsed++;
        return slot;
    }

    private void checkRegistrable(MemorySegment segment, String call) {
        if (segment == null) throw new NullPointerException(call + " at pid " + pid + ": segment is null");
        if (regUsed >= regCapacity) {
            throw new IllegalStateException(call + "(" + segment + ") at pid " + pid + " of " + nprocs
                    + ": memory register full: " + regUsed + " of " + regCapacity
                    + " slots in use (resizeMemoryRegister, then sync, to raise it)");
        }
        if (segment.byteSize() > 0 && !segment.isAccessibleBy(FOREIGN_THREAD)) {
            throw new IllegalArgumentException(call + "(" + segment + ") at pid " + pid
                    + ": the segment is confined to one thread; the threads engine copies on every process's"
                    + " thread, so register heap segments or segments of shared, global or automatic arenas");
        }
    }

    @Override
    public void deregister(Memslot slot) {
        if (slot == null || slot.owner() != this) {
            throw new IllegalArgumentException("deregister(" + slot + ") at pid " + pid + ": "
                    + (slot == null ? "slot is null" : "the slot belongs to another context"));
        }
        int id = slot.id();
        if (id < 0 || id >= (slot.isGlobal() ? globalSlots : localSlots).length) {
            throw new IllegalArgumentException("deregister(" + slot + ") at pid " + pid + ": " + describeUnusable(slot));
        }
        if (slot.isGlobal()) {
            if (globalSlots[id] != slot) throw new IllegalArgumentException("deregister(" + slot + ") at pid " + pid + ": already deregistered");
            globalSlots[id] = null;
            globalSegments[id] = null;
            globalSources[id] = null;
            freeGlobalIds[freeGlobalCount++] = id;
        } else {
            if (localSlots[id] != slot) throw new IllegalArgumentException("deregister(" + slot + ") at pid " + pid + ": already deregistered");
            localSlots[id] = null;
            localSegments[id] = null;
            localSources[id] = null;
            freeLocalIds[freeLocalCount++] = id;
        }
        regUsed--;
    }

    // =====================================================================================
    // capacities
    // =====================================================================================

    @Override
    public void resizeMemoryRegister(long maxRegs) {
        if (maxRegs < 0) throw new IllegalArgumentException("resizeMemoryRegister(" + maxRegs + ") at pid " + pid + ": negative capacity");
        if (maxRegs > globalSlots.length) {
            int n = checkedCapacity("resizeMemoryRegister", maxRegs, REGISTER_ENTRY_BYTES * 2, Integer.MAX_VALUE - 16);
            try {
                Memslot[] gs = Arrays.copyOf(globalSlots, n);
                MemorySegment[] gseg = Arrays.copyOf(globalSegments, n);
                MemorySegment[] gsrc = Arrays.copyOf(globalSources, n);
                long[] gact = Arrays.copyOf(globalActiveFromSync, n);
                int[] gfree = Arrays.copyOf(freeGlobalIds, n);
                Memslot[] ls = Arrays.copyOf(localSlots, n);
                MemorySegment[] lseg = Arrays.copyOf(localSegments, n);
                MemorySegment[] lsrc = Arrays.copyOf(localSources, n);
                int[] lfree = Arrays.copyOf(freeLocalIds, n);
                globalSlots = gs; globalSegments = gseg; globalSources = gsrc; globalActiveFromSync = gact;
                freeGlobalIds = gfree;
                localSlots = ls; localSegments = lseg; localSources = lsrc; freeLocalIds = lfree;
            } catch (OutOfMemoryError e) {
                throw new LpfOutOfMemoryException("resizeMemoryRegister(" + maxRegs + ") at pid " + pid + ": out of memory", e);
            }
        }
        regPendingCapacity = (int) maxRegs; // shrinking (or staying) always succeeds
    }

    @Override
    public void resizeMessageQueue(long maxMsgs) {
        if (maxMsgs < 0) throw new IllegalArgumentException("resizeMessageQueue(" + maxMsgs + ") at pid " + pid + ": negative capacity");
        int current = (int) syncs & 1;
        if (maxMsgs > queues[current].capacity || maxMsgs > queues[1 - current].capacity) {
            int n = checkedCapacity("resizeMessageQueue", maxMsgs, 2 * RequestQueue.bytesFor(1),
                    RequestQueue.MAX_CAPACITY);
            try {
                RequestQueue grown = n > queues[current].capacity ? queues[current].grownTo(n) : null;
                RequestQueue other = n > queues[1 - current].capacity ? new RequestQueue(n, nprocs) : null;
                if (grown != null) {
                    queues[current] = grown;
                    publish(current);
                }
                // Peers may still read the other queue (last superstep's): replace it at the next sync.
                if (other != null) pendingOther = other;
            } catch (OutOfMemoryError e) {
                throw new LpfOutOfMemoryException("resizeMessageQueue(" + maxMsgs + ") at pid " + pid + ": out of memory", e);
            }
        }
        queuePendingCapacity = (int) maxMsgs; // shrinking (or staying) always succeeds
    }

    /**
     * Refuses, before allocating, a capacity that cannot exist: more entries than the arrays can
     * index, or more bytes than this JVM's whole heap. Anything else is tried, and an
     * OutOfMemoryError becomes LpfOutOfMemoryException with no effect.
     */
    private int checkedCapacity(String call, long requested, long bytesPerEntry, int maxEntries) {
        long heap = Runtime.getRuntime().maxMemory();
        if (requested > maxEntries || requested > heap / bytesPerEntry) {
            throw new LpfOutOfMemoryException(call + "(" + requested + ") at pid " + pid + ": needs about "
                    + (requested > Long.MAX_VALUE / bytesPerEntry ? "more than 2^63" : String.valueOf(requested * bytesPerEntry))
                    + " bytes (at most " + maxEntries + " entries), this JVM's heap is " + heap
                    + " bytes; nothing changed", null);
        }
        return (int) requested;
    }

    // =====================================================================================
    // sections
    // =====================================================================================

    @Override
    public Machine probe() {
        int p = root ? freeP : nprocs;
        Probe.Fit fit = Probe.fitFor(p);
        return new Machine(p, freeP, fit.sizes(), fit.g(), fit.l());
    }

    @Override
    public void exec(int p, Spmd spmd, Args args) {
        Objects.requireNonNull(spmd, "exec: spmd");
        Objects.requireNonNull(args, "exec: args");
        if (p < 1) throw new IllegalArgumentException("exec(p=" + p + ") at pid " + pid + ": p must be at least 1");
        if (team.failed()) throw team.fatal(pid);
        Sections.exec(Math.min(p, freeP), freeP, spmd, args);
    }

    @Override
    public void rehook(Spmd spmd, Args args) {
        Objects.requireNonNull(spmd, "rehook: spmd");
        Objects.requireNonNull(args, "rehook: args");
        if (team.failed()) throw team.fatal(pid);
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
