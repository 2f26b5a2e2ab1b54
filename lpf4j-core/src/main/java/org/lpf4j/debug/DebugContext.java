package org.lpf4j.debug;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.SyncAttr;
import org.lpf4j.spi.CoreParameters;
import org.lpf4j.spi.kit.ForwardingContext;
import org.lpf4j.spi.kit.RequestChecks;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The checking decorator of one process's context (see {@link Debug} for the scheme). Checks each
 * call at once where the process alone can tell, holds the requests until {@code sync}, and there
 * checks, after an exchange through the engine with the other processes, what needs their
 * state: remote bounds and activation, the queue capacity at each target, the order of
 * collective registrations, syncs that not every process makes, and read/write conflicts on this
 * process's memory. Used by one thread at a time, like any context.
 *
 * <p>The checks that need the other processes are {@link SyncChecks}, this process's
 * registrations {@link Registrations}: this class makes the checks a process can make alone,
 * holds the requests and runs the steps of each call.
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
    /** {@code lpf.capacity=grow}: capacities are not checked (the engine grows them); the high-water marks are reported at the end. */
    private final boolean grows = "grow".equals(CoreParameters.CAPACITY.get());
    /** The most slots registered at once, and the most requests issued by this process in one superstep (aimed at it: {@link SyncChecks#incomingHigh}). */
    private long regHigh, queueHigh;
    /** This process's live registrations; also what the argument rules see of them. */
    private final Registrations slots = new Registrations();
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
    /** The checks of a sync that need the other processes, and the layer's exchange with them. */
    private final SyncChecks checks;

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
        this.checks = new SyncChecks(pid, nprocs, requests, byTarget, collectiveCalls, collectiveKeys, slots.globalsById(),
                this::candidate, section, this::layerSync);
    }

    @Override public int pid() { return pid; }

    @Override public int nprocs() { return nprocs; }

    /** The user's supersteps: the engine makes more syncs than the program under this layer. */
    @Override public long superstep() { return step; }

    // =====================================================================================
    // reports
    // =====================================================================================

    private LpfProgrammingError report(Check check, String call, String site, String problem, Throwable cause) {
        return recorded(new LpfProgrammingError(check, message(pid, check, call, site, problem), cause));
    }

    /** A report not yet recorded: the exchange's verdict decides which report every process throws. */
    private LpfProgrammingError candidate(int origin, Check check, String call, String site, String problem) {
        return new LpfProgrammingError(check, message(origin, check, call, site, problem), null);
    }

    /** @param origin the process that made the call (the origin of a request another process checked) */
    private String message(int origin, Check check, String call, String site, String problem) {
        return "lpf debug [" + check.tag() + "] " + call + " at " + site + " on pid " + origin + " of " + nprocs
                + " (superstep " + step + "): " + problem;
    }

    private LpfProgrammingError recorded(LpfProgrammingError e) {
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

    /** @return the queue capacity the checks hold this process to: none under {@code lpf.capacity=grow} */
    private int queueLimit() { return grows ? Integer.MAX_VALUE : (int) Math.min(queueCapacity, Integer.MAX_VALUE); }

    private void enqueue(Request r) {
        failIfSectionFailed();
        RequestChecks.Violation v = r.put
                ? RequestChecks.putViolation(slots, step, nprocs, r.localSlot, r.localOffset, r.remotePid, r.remoteSlot,
                        r.remoteOffset, r.size, r.attr, requests.size(), queueLimit(), combining)
                : RequestChecks.getViolation(slots, step, nprocs, r.remotePid, r.remoteSlot, r.remoteOffset, r.localSlot,
                        r.localOffset, r.size, r.attr, requests.size(), queueLimit());
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

    // =====================================================================================
    // sync: local checks, the layer's exchange through the engine, then the real superstep
    // =====================================================================================

    private static final String RETURN = "return from the SPMD function";

    /**
     * Sets up the layer's own traffic: collective, called by every process of a section before
     * the user's function runs (so the mailbox's global id is the same everywhere whatever the
     * program does). Nothing in a section of one process, whose checks need no exchange.
     */
    void start() {
        if (nprocs == 1 || checks.isOpen()) return;
        try {
            startExchange();
        } catch (FatalException e) {
            throw translated(e);
        }
    }

    private void startExchange() {
        engine.resizeMemoryRegister(withReserve(Math.max(regPending, regCapacity), Mailbox.REGISTRATIONS));
        engine.resizeMessageQueue(withReserve(Math.max(queuePending, queueCapacity), Mailbox.queueEntries(nprocs)));
        layerSync();
        checks.open(engine);
        layerSync();
    }

    @Override
    public void sync(SyncAttr attr) {
        Objects.requireNonNull(attr, "sync: attr");
        String site = Site.caller();
        failIfSectionFailed();
        start();
        LpfProgrammingError local = localAreaChanged();
        boolean anyRequests;
        try {
            anyRequests = checkSuperstep(SyncChecks.SYNC, "sync()", site, local);
        } catch (FatalException e) {
            throw failed(e, local);
        }
        if (anyRequests || !checks.isOpen()) {
            for (Request r : requests) forward(r);
            engineSync(attr);
        }
        endSuperstep();
    }

    /** @return the report of the first request whose local area the program wrote since the call, or null */
    private LpfProgrammingError localAreaChanged() {
        for (Request r : requests) {
            if (r.size > 0 && r.localAreaChanged()) {
                return candidate(pid, Check.READ_WRITE_CONFLICT, r.call(), r.site, "the program wrote the " + (r.put
                        ? "source area of this put" : "destination area of this get")
                        + " before the sync that executes it (it must stay untouched until that sync returns)");
            }
        }
        return null;
    }

    /** After a sync: the next superstep starts with the capacities asked for and nothing held. */
    private void endSuperstep() {
        queueHigh = Math.max(queueHigh, requests.size());
        step++;
        regCapacity = regPending;
        long held = queueCapacity;
        queueCapacity = queuePending;
        // The engine kept the larger capacity for the held requests; now it may shrink.
        if (queueCapacity < held) engine.resizeMessageQueue(withReserve(queueCapacity, queueReserve()));
        for (Request r : requests) requestsTo[r.remotePid].clear();
        requests.clear();
        collectiveCalls.clear();
        collectiveKeys.clear();
    }

    /**
     * Called when the user's SPMD function returned normally: every slot must be deregistered,
     * and (collective, like a sync) every other process must have returned as well rather than
     * be waiting in a sync this one never makes.
     */
    void end() {
        if (grows) System.err.println(highWaterMarks());
        LpfProgrammingError local = null;
        if (!slots.live().isEmpty()) {
            List<String> left = new ArrayList<>();
            for (SlotInfo s : slots.live()) left.add(s.slot + " registered at " + s.site);
            SlotInfo first = slots.live().iterator().next();
            local = candidate(pid, Check.SLOTS_LEFT_REGISTERED, RETURN, first.site, slots.live().size()
                    + " slot(s) still registered: " + left + " (deregister them before returning)");
        }
        if (!checks.isOpen()) {
            if (local != null) throw recorded(local);
            return;
        }
        try {
            checkSuperstep(SyncChecks.END, RETURN, "the end of the SPMD function", local);
            checks.close();
        } catch (FatalException e) {
            throw failed(e, local);
        }
    }

    /**
     * @return what {@code lpf.capacity=grow} reports at the end of a section: the capacities that
     *         would have sufficed, counted as the debug layer checks them
     */
    String highWaterMarks() {
        long queue = Math.max(queueHigh, checks.incomingHigh());
        return "lpf debug: pid " + pid + " of " + nprocs + ": high-water marks of the section (lpf.capacity=grow): "
                + regHigh + " register slot(s) at once, " + queue + " queue entries in one superstep (the requests"
                + " this process issued, or those aimed at it, whichever is more); for fixed capacities reserve at least"
                + " Capacity.of(" + regHigh + ", " + queue + ")";
    }

    /** {@link SyncChecks#check} with this superstep's figures (see there and {@link Debug} for the scheme). */
    private boolean checkSuperstep(long kind, String call, String site, LpfProgrammingError local) {
        return checks.check(kind, call, site, local, step, grows ? Long.MAX_VALUE : queueCapacity);
    }

    private void layerSync() { engineSync(SyncAttr.DEFAULT); }

    private void engineSync(SyncAttr attr) {
        try {
            engine.sync(attr);
        } catch (FatalException e) {
            throw translated(e);
        }
    }

    /**
     * The exchange failed (another process failed first): this process's own finding, if it has
     * one, is what it throws (a follow-on the section's failure lists); else as {@link #translated}.
     */
    private FatalException failed(FatalException e, LpfProgrammingError local) {
        if (local == null || e instanceof LpfProgrammingError) return translated(e);
        local.addSuppressed(e);
        return recorded(local);
    }

    /**
     * The engine's failure (another process failed) as the first report of this section in this
     * JVM, if there is one; the engine's exception otherwise.
     */
    private FatalException translated(FatalException e) {
        LpfProgrammingError first = section.firstError();
        if (first != null && !(e instanceof LpfProgrammingError)) return new LpfProgrammingError(first.check(), first.getMessage(), e);
        return e;
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
        if (regUsed >= regCapacity && !grows) {
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
        slots.add(slot, new SlotInfo(slot, segment, global ? step + 1 : step, site), global);
        regUsed++;
        regHigh = Math.max(regHigh, regUsed);
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
            throw report(Check.BAD_SLOT, call, site, slots.whyUnknown(slot), null);
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
        if (slot.isGlobal()) {
            collectiveCalls.add("deregister(" + slot + ") at " + site);
            collectiveKeys.add("deregister(global#" + slot.id() + ")");
        }
        regUsed--;
    }

    // =====================================================================================
    // capacities: forwarded so that out-of-memory shows at the call; shrinking at the sync
    // =====================================================================================

    @Override
    public void resizeMemoryRegister(long maxRegs) {
        engine.resizeMemoryRegister(withReserve(maxRegs, nprocs > 1 ? Mailbox.REGISTRATIONS : 0));
        regPending = maxRegs;
    }

    @Override
    public void resizeMessageQueue(long maxMsgs) {
        // Held requests are handed to the engine after the layer's syncs, which already apply the
        // pending capacity: never ask for less than this superstep's capacity until then.
        engine.resizeMessageQueue(withReserve(maxMsgs < 0 ? maxMsgs : Math.max(maxMsgs, queueCapacity), queueReserve()));
        queuePending = maxMsgs;
    }

    /** @return the queue entries the layer's own supersteps need */
    private long queueReserve() { return nprocs > 1 ? Mailbox.queueEntries(nprocs) : 0; }

    /**
     * The engine's capacity: the user's plus what the layer needs (saturating; a negative request
     * is passed on as it is, for the engine to refuse). The user-visible checks use the user's.
     */
    private static long withReserve(long users, long reserve) {
        if (users < 0) return users;
        long sum = users + reserve;
        return sum < users ? Long.MAX_VALUE : sum;
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
        DebugSection child = new DebugSection();
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
