package org.lpf4j.debug;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.SyncAttr;
import org.lpf4j.spi.kit.ForwardingContext;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.SlotView;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The checking decorator of one process's context (see {@link Debug} for the scheme). Checks each
 * call at once where the process alone can tell, holds the requests until {@code sync}, and there
 * checks, after a barrier, what needs the other processes' state: remote bounds and activation,
 * the queue capacity at each target, the order of collective registrations, and read/write
 * conflicts on this process's memory. Used by one thread at a time, like any context; other
 * processes' decorators read its state only between that barrier and the sync that follows.
 */
final class DebugContext extends ForwardingContext {
    private final Context engine;
    private final DebugSection section;
    private final int pid;
    private final int nprocs;

    /** Completed syncs (user supersteps). */
    private long step;
    private long regCapacity;
    private long regPending;
    private long regUsed;
    private long queueCapacity;
    private long queuePending;
    /** The engine's owner object of this process's slots, learnt from the first registration. */
    private Object slotOwner;
    /** Handles deregistered through this layer (weak: a dropped handle costs nothing). */
    private final java.util.WeakHashMap<Memslot, Boolean> retired = new java.util.WeakHashMap<>();
    private final Map<Memslot, SlotInfo> slots = new IdentityHashMap<>();
    private final Map<Integer, SlotInfo> globalsById = new HashMap<>();
    private final List<Request> requests = new ArrayList<>();
    /** The same requests by target pid (lists made on first use), so a target finds its own in O(p + n). */
    private final List<Request>[] requestsTo;
    /** Global register/deregister calls of this superstep, e.g. "registerGlobal at X.java:3". */
    private final List<String> collectiveCalls = new ArrayList<>();
    /** The same calls without sites, for comparing processes. */
    private final List<String> collectiveKeys = new ArrayList<>();
    private long rehooks;
    /** Whether the engine supports combining puts (asked once). */
    private final boolean combining;

    DebugContext(Context engine, DebugSection section) {
        super(engine);
        this.engine = engine;
        this.section = section;
        this.pid = engine.pid();
        this.nprocs = engine.nprocs();
        this.combining = engine.supports(org.lpf4j.Capability.COMBINING_PUTS);
        @SuppressWarnings({"unchecked", "rawtypes"})
        List<Request>[] byTarget = new List[nprocs];
        this.requestsTo = byTarget;
    }

    /** @return this process's requests of the current superstep that target {@code target} */
    private List<Request> requestsTo(int target) {
        List<Request> list = requestsTo[target];
        return list != null ? list : List.of();
    }

    @Override public int pid() { return pid; }

    @Override public int nprocs() { return nprocs; }

    /** The user's supersteps: the engine makes more syncs than the program under this layer. */
    @Override public long superstep() { return step; }

    // =====================================================================================
    // reports
    // =====================================================================================

    private LpfProgrammingError report(Check check, String call, String site, String problem, Throwable cause) {
        LpfProgrammingError e = new LpfProgrammingError(check, "lpf debug [" + check.tag() + "] " + call + " at " + site
                + " on pid " + pid + " of " + nprocs + " (superstep " + step + "): " + problem, cause);
        section.record(e);
        return e;
    }

    private void failIfSectionFailed() {
        LpfProgrammingError first = section.firstError();
        if (first != null) throw new LpfProgrammingError(first.check(), first.getMessage(), first);
    }

    // =====================================================================================
    // put / get: local checks, then held until sync
    // =====================================================================================

    @Override
    public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        Request r = new Request(true, pid, srcSlot, srcOffset, dstPid, dstSlot, dstOffset, size, attr, Site.caller());
        enqueue(r);
    }

    @Override
    public void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        Request r = new Request(false, pid, dstSlot, dstOffset, srcPid, srcSlot, srcOffset, size, attr, Site.caller());
        enqueue(r);
    }

    private void enqueue(Request r) {
        failIfSectionFailed();
        RequestChecks.Violation v = r.put
                ? RequestChecks.putViolation(slotView, step, nprocs, r.localSlot, r.localOffset, r.remotePid, r.remoteSlot,
                        r.remoteOffset, r.size, r.attr, requests.size(), (int) Math.min(queueCapacity, Integer.MAX_VALUE),
                        combining)
                : RequestChecks.getViolation(slotView, step, nprocs, r.remotePid, r.remoteSlot, r.remoteOffset, r.localSlot,
                        r.localOffset, r.size, r.attr, requests.size(), (int) Math.min(queueCapacity, Integer.MAX_VALUE));
        if (v != null) {
            String problem = v.kind() == RequestChecks.Kind.OUT_OF_BOUNDS
                    ? (r.put ? "source" : "destination") + " area " + RequestChecks.area(v.offset(), v.size())
                    + " exceeds the " + v.registered() + " bytes registered for " + r.localSlot
                    : v.problem();
            throw report(checkOf(v.kind()), r.call(), r.site, problem, null);
        }
        r.capture(slots.get(r.localSlot).segment.asSlice(r.localOffset, r.size));
        requests.add(r);
        if (requestsTo[r.remotePid] == null) requestsTo[r.remotePid] = new ArrayList<>();
        requestsTo[r.remotePid].add(r);
    }

    private static Check checkOf(RequestChecks.Kind kind) {
        return switch (kind) {
            case BAD_PID, BAD_ARGUMENT -> Check.BAD_ARGUMENT;
            case BAD_SLOT -> Check.BAD_SLOT;
            case INACTIVE_SLOT -> Check.INACTIVE_SLOT;
            case LOCAL_SLOT_AS_REMOTE -> Check.LOCAL_SLOT_AS_REMOTE;
            case OUT_OF_BOUNDS -> Check.OUT_OF_BOUNDS;
            case QUEUE_FULL -> Check.QUEUE_CAPACITY;
        };
    }

    /** This process's registrations as the argument rules see them. */
    private final SlotView slotView = new SlotView() {
        @Override public MemorySegment localArea(Memslot slot, long superstep, boolean source) {
            SlotInfo info = slot == null ? null : slots.get(slot);
            return info == null || info.activeFrom > superstep ? null : info.segment;
        }

        @Override public boolean isUsableGlobal(Memslot slot, long superstep) {
            SlotInfo info = slot == null ? null : slots.get(slot);
            return info != null && slot.isGlobal() && info.activeFrom <= superstep;
        }

        @Override public boolean isOwnLocal(Memslot slot) {
            return slot != null && !slot.isGlobal() && slots.get(slot) != null;
        }

        @Override public boolean isPending(Memslot slot, long superstep) {
            SlotInfo info = slot == null ? null : slots.get(slot);
            return info != null && info.activeFrom > superstep;
        }

        @Override public String describeUnusable(Memslot slot, long superstep) {
            if (slot == null) return "is null";
            SlotInfo info = slots.get(slot);
            if (info == null) {
                return slot.owner() != slotOwner && slot.owner() instanceof SlotRegister
                        ? slot + " belongs to another context (slots are per context and process)"
                        : slot.owner() != slotOwner ? SlotRegister.notIssued(slot)
                        : retired.containsKey(slot) ? slot + " is deregistered" : SlotRegister.notIssued(slot);
            }
            return slot + " was registered globally at " + info.site + " in this superstep; it is usable only after the next sync";
        }
    };

    // =====================================================================================
    // sync: local checks, barrier, cross-process checks, then the real superstep
    // =====================================================================================

    @Override
    public void sync(SyncAttr attr) {
        Objects.requireNonNull(attr, "sync: attr");
        String site = Site.caller();
        failIfSectionFailed();
        for (Request r : requests) {
            if (r.size > 0 && r.localAreaChanged()) {
                throw report(Check.READ_WRITE_CONFLICT, r.call(), r.site, "the program wrote the " + (r.put
                        ? "source area of this put" : "destination area of this get")
                        + " before the sync that executes it (it must stay untouched until that sync returns)", null);
            }
        }
        boolean barrier = section.shared() && nprocs > 1;
        if (barrier) engineSync(attr);
        checkCollectiveOrder(site);
        checkRemoteAreas();
        checkIncomingCapacity();
        checkConflictsOnMyMemory();
        engine.resizeMessageQueue(queuePending);
        for (Request r : requests) forward(r);
        engineSync(attr);
        step++;
        regCapacity = regPending;
        queueCapacity = queuePending;
        for (Request r : requests) requestsTo[r.remotePid].clear();
        requests.clear();
        collectiveCalls.clear();
        collectiveKeys.clear();
    }

    private void engineSync(SyncAttr attr) {
        try {
            engine.sync(attr);
        } catch (FatalException e) {
            LpfProgrammingError first = section.firstError();
            if (first != null && !(e instanceof LpfProgrammingError)) {
                throw new LpfProgrammingError(first.check(), first.getMessage(), e);
            }
            throw e;
        }
    }

    private void forward(Request r) {
        try {
            if (r.put) {
                engine.put(r.localSlot, r.localOffset, r.remotePid, r.remoteSlot, r.remoteOffset, r.size, r.attr);
            } else {
                engine.get(r.remotePid, r.remoteSlot, r.remoteOffset, r.localSlot, r.localOffset, r.size, r.attr);
            }
        } catch (RuntimeException e) {
            throw report(Check.ENGINE_REJECTED, r.call(), r.site, e.getMessage(), e);
        }
    }

    /**
     * Every process compares the collective calls of every process it can see (all, in one JVM)
     * with those of the lowest such pid: all of them report the same mismatch.
     */
    private void checkCollectiveOrder(String site) {
        DebugContext first = null;
        for (int q = 0; q < nprocs; q++) {
            DebugContext other = section.member(q);
            if (other == null) continue;
            if (first == null) {
                first = other;
            } else if (!other.collectiveKeys.equals(first.collectiveKeys)) {
                throw report(Check.COLLECTIVE_MISMATCH, "sync()", site, "global register/deregister calls of this"
                        + " superstep differ in order or number (they are collective: same calls, same order, on every"
                        + " process): pid " + first.pid + " made " + first.collectiveCalls + ", pid " + q + " made "
                        + other.collectiveCalls, null);
            }
        }
    }

    /** The remote side of each of this process's requests: registered, active, large enough. */
    private void checkRemoteAreas() {
        for (Request r : requests) {
            DebugContext target = section.member(r.remotePid);
            if (target == null) continue;
            SlotInfo info = target.globalsById.get(r.remoteSlot.id());
            String role = r.put ? "destination" : "source";
            if (info == null) {
                throw report(Check.BAD_SLOT, r.call(), r.site, r.remoteSlot + " is not registered at pid " + r.remotePid, null);
            }
            if (info.activeFrom > step) {
                throw report(Check.INACTIVE_SLOT, r.call(), r.site, "pid " + r.remotePid + " registered " + r.remoteSlot
                        + " at " + info.site + " in this superstep; it is usable only after the next sync", null);
            }
            long registered = info.segment.byteSize();
            if (r.remoteOffset > registered - r.size) {
                throw report(Check.OUT_OF_BOUNDS, r.call(), r.site, role + " area " + RequestChecks.area(r.remoteOffset, r.size)
                        + " exceeds the " + registered + " bytes pid " + r.remotePid
                        + " registered for " + r.remoteSlot + " (at " + info.site + ")", null);
            }
        }
    }

    /** Each put or get also takes a queue entry at its target: this process counts what targets it. */
    private void checkIncomingCapacity() {
        List<Request> incoming = new ArrayList<>();
        for (int q = 0; q < nprocs; q++) {
            DebugContext origin = section.member(q);
            if (origin == null) continue;
            incoming.addAll(origin.requestsTo(pid));
        }
        if (incoming.size() > queueCapacity) {
            Request last = incoming.get((int) queueCapacity);
            throw report(Check.QUEUE_CAPACITY, last.call(), last.site, "pid " + pid + " is the target of "
                    + incoming.size() + " requests this superstep but its message queue holds " + queueCapacity
                    + " (a put or get takes an entry at its origin and at its target): "
                    + incoming.stream().map(Request::brief).toList(), null);
        }
    }

    /**
     * The areas of this process's memory that requests of this superstep write (puts to it, its
     * own gets) must not overlap the areas requests read (its own puts, gets from it). Sorts the
     * n areas by address and sweeps them once: O(p + n log n) for n requests touching this
     * process's memory.
     */
    private void checkConflictsOnMyMemory() {
        List<Area> areas = new ArrayList<>();
        for (Request r : requests) {
            if (r.size > 0) areas.add(new Area(r, !r.put, r.localArea));
        }
        for (int q = 0; q < nprocs; q++) {
            DebugContext origin = section.member(q);
            if (origin == null) continue;
            for (Request r : origin.requestsTo(pid)) {
                if (r.size == 0) continue;
                SlotInfo info = globalsById.get(r.remoteSlot.id());
                if (info == null || r.remoteOffset > info.segment.byteSize() - r.size) continue; // its origin reports it
                areas.add(new Area(r, r.put, info.segment.asSlice(r.remoteOffset, r.size)));
            }
        }
        Area[] conflict = Area.findConflict(areas);
        if (conflict == null) return;
        Request wr = conflict[0].request(), rd = conflict[1].request();
        Request mine = rd.origin == pid ? rd : wr;
        throw report(Check.READ_WRITE_CONFLICT, mine.call(), mine.site, "in this superstep " + wr.brief()
                + " writes memory of pid " + pid + " that " + rd.brief() + " reads (" + wr.call() + " vs "
                + rd.call() + "); a source must not be another request's destination", null);
    }

    // =====================================================================================
    // registration
    // =====================================================================================

    @Override
    public Memslot registerGlobal(MemorySegment segment) {
        String site = Site.caller();
        Memslot slot = register(segment, true, site);
        collectiveCalls.add("registerGlobal(" + segment.byteSize() + " B) at " + site);
        collectiveKeys.add("registerGlobal");
        return slot;
    }

    @Override
    public Memslot registerLocal(MemorySegment segment) {
        return register(segment, false, Site.caller());
    }

    private Memslot register(MemorySegment segment, boolean global, String site) {
        failIfSectionFailed();
        String call = (global ? "registerGlobal(" : "registerLocal(") + segment + ")";
        if (segment == null) throw report(Check.BAD_ARGUMENT, call, site, "segment is null", null);
        if (regUsed >= regCapacity) {
            throw report(Check.REGISTER_CAPACITY, call, site, RequestChecks.registerFull(regUsed, regCapacity), null);
        }
        Memslot slot;
        try {
            slot = global ? engine.registerGlobal(segment) : engine.registerLocal(segment);
        } catch (LpfOutOfMemoryException e) {
            throw e;
        } catch (RuntimeException e) {
            throw report(Check.ENGINE_REJECTED, call, site, e.getMessage(), e);
        }
        slotOwner = slot.owner();
        SlotInfo info = new SlotInfo(slot, segment, global ? step + 1 : step, site);
        slots.put(slot, info);
        if (global) globalsById.put(slot.id(), info);
        regUsed++;
        return slot;
    }

    @Override
    public void deregister(Memslot slot) {
        String site = Site.caller();
        failIfSectionFailed();
        String call = "deregister(" + slot + ")";
        if (slot == null) throw report(Check.BAD_ARGUMENT, call, site, "slot is null", null);
        SlotInfo info = slots.get(slot);
        if (info == null) {
            throw report(Check.BAD_SLOT, call, site, slot.owner() != slotOwner
                    ? (slot.owner() instanceof SlotRegister ? slot + " belongs to another context" : SlotRegister.notIssued(slot))
                    : retired.containsKey(slot) ? slot + " is already deregistered" : SlotRegister.notIssued(slot), null);
        }
        for (Request r : requests) {
            if (r.names(slot)) {
                throw report(Check.DEREGISTER_PENDING, call, site, r.call() + " at " + r.site
                        + " names the slot and is pending until the next sync", null);
            }
        }
        try {
            engine.deregister(slot);
        } catch (RuntimeException e) {
            throw report(Check.ENGINE_REJECTED, call, site, e.getMessage(), e);
        }
        slots.remove(slot);
        retired.put(slot, Boolean.TRUE);
        if (slot.isGlobal()) {
            globalsById.remove(slot.id());
            collectiveCalls.add("deregister(" + slot + ") at " + site);
            collectiveKeys.add("deregister(global#" + slot.id() + ")");
        }
        regUsed--;
    }

    /** Called when the user's SPMD function returned normally. */
    void checkNothingLeftRegistered() {
        if (slots.isEmpty()) return;
        List<String> left = new ArrayList<>();
        for (SlotInfo s : slots.values()) left.add(s.slot + " registered at " + s.site);
        SlotInfo first = slots.values().iterator().next();
        throw report(Check.SLOTS_LEFT_REGISTERED, "return from the SPMD function", first.site, slots.size()
                + " slot(s) still registered: " + left + " (deregister them before returning)", null);
    }

    // =====================================================================================
    // capacities: forwarded so that out-of-memory shows at the call; shrinking at the sync
    // =====================================================================================

    @Override
    public void resizeMemoryRegister(long maxRegs) {
        engine.resizeMemoryRegister(maxRegs);
        regPending = maxRegs;
    }

    @Override
    public void resizeMessageQueue(long maxMsgs) {
        // Held requests are handed to the engine after the barrier sync, which already applies
        // the pending capacity: never ask for less than this superstep's capacity until then.
        engine.resizeMessageQueue(maxMsgs < 0 ? maxMsgs : Math.max(maxMsgs, queueCapacity));
        queuePending = maxMsgs;
    }

    // =====================================================================================
    // sections
    // =====================================================================================

    @Override
    public void exec(int p, Spmd spmd, Args args) {
        Objects.requireNonNull(spmd, "exec: spmd");
        if (spmd instanceof DebugSpmd) {
            // Already checked: an engine runs a nested exec through another root (Lpf.root), which
            // lpf.debug wraps too. One layer per process, as on an engine that nests in itself.
            engine.exec(p, spmd, args);
            return;
        }
        DebugSection child = new DebugSection(true);
        try {
            engine.exec(p, new DebugSpmd(spmd, child), args);
        } catch (FatalException e) {
            throw carrying(child, e);
        }
    }

    @Override
    public void rehook(Spmd spmd, Args args) {
        Objects.requireNonNull(spmd, "rehook: spmd");
        DebugSection child = section.rehook(++rehooks);
        try {
            engine.rehook(new DebugSpmd(spmd, child), args);
        } catch (FatalException e) {
            throw carrying(child, e);
        }
    }

    /**
     * The failure of a child section as an {@link LpfProgrammingError} when a report caused it.
     * The engine's cause is the first exception any process threw, so it decides: a report
     * there is the one carried; another exception there (the user's own) came first and {@code e}
     * is returned as it is, even if a later follow-on report (e.g. slots left registered by a
     * process that returned meanwhile) exists; without a cause (an early return) the section's
     * first report is carried.
     */
    static FatalException carrying(DebugSection child, FatalException e) {
        if (e instanceof LpfProgrammingError) return e;
        Throwable cause = e.getCause();
        LpfProgrammingError first = cause instanceof LpfProgrammingError report ? report
                : cause == null ? child.firstError() : null;
        if (first == null) return e;
        return new LpfProgrammingError(first.check(), first.getMessage(), e);
    }

    @Override
    public String toString() { return "Debug[" + engine + "]"; }
}
