package org.lpf4j.bsplib;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One process's BSPlib state (C LPF's {@code bsplib_t}) over an LPF {@link Context}: the BSPlib
 * primitives on the public core API, so on every engine.
 *
 * <pre>{@code
 * Bsplib.run(4, bsp -> {
 *     long[] x = new long[bsp.nprocs()];
 *     MemorySegment xs = MemorySegment.ofArray(x);
 *     bsp.pushReg(xs);
 *     bsp.sync();                                             // the registration takes effect
 *     MemorySegment me = MemorySegment.ofArray(new long[] {bsp.pid()});
 *     for (int q = 0; q < bsp.nprocs(); q++) bsp.put(q, me, xs, 8L * bsp.pid(), 8);
 *     bsp.sync();                                             // x holds every pid
 *     bsp.popReg(xs);
 * });
 * }</pre>
 *
 * <h2>Semantics (those of BSPlib)</h2>
 * <ul>
 *   <li><b>Registration</b> ({@link #pushReg}, {@link #popReg}) is collective (same calls in
 *       the same order on every process) and takes effect at the next {@link #sync()}. An area is
 *       named by its identity: where it starts (a native segment's address; a heap segment's array
 *       and offset), so {@code MemorySegment.ofArray(a)} names the same area each time. Pushing
 *       the same area again stacks a registration; {@code popReg} removes the latest one (at the
 *       next sync; until then the area stays usable). Each process may register an area of its
 *       own size: the sizes are exchanged at the registration's sync (p longs per registration),
 *       and a put or get is checked against the size its target process registered.</li>
 *   <li>{@link #put} copies the source at the call (it may be overwritten at once);
 *       {@link #hpput} reads it during the sync (it must stay unchanged until then).</li>
 *   <li>{@link #get} and {@link #hpget} read the source as it was before the superstep's puts:
 *       gets are served before puts are applied; the destination is written by the sync.</li>
 *   <li>{@link #send} messages are received in the superstep after the one they were sent in:
 *       {@link #qsize()}, {@link #getTag}, {@link #move}, {@link #hpmove()}. The tag size
 *       ({@link #setTagsize}, collective) changes at the next sync.</li>
 *   <li>{@link #abort(String)} ends the whole section: every other process gets a
 *       {@link org.lpf4j.FatalException} from its next sync, never a hang.</li>
 * </ul>
 * Errors are exceptions that name the call, the pid and the values; a call that throws has no
 * effect. Collective mismatches (push/pop counts, popping other registrations, tag sizes) are found
 * at the sync and thrown there on every process alike; the superstep's registrations, pops and tag
 * size are then void everywhere, and its puts, gets and messages are dropped (hpputs may have landed).
 *
 * <h2>Capacities</h2>
 * The user sizes nothing: the layer owns the context's message queue and memory register and
 * grows both at a sync, collectively, when the superstep needs more (one extra empty core
 * superstep then; capacities never shrink). While a {@code Bsplib} is open the program must not
 * use its {@code Context} for its own registrations or requests.
 *
 * <h2>How a sync works, and its cost</h2>
 * A {@code put} or {@code send} writes a record (header and bytes) into this process's stream for
 * its destination: one region of {@code R} bytes per destination in a native buffer. The sync is
 * then, in the common case, <b>one core superstep</b>: each process puts to every other one its
 * stream, led by a header of 16 longs (what it sends, its totals and its collective arguments):
 * {@code p − 1} puts, h = the stream bytes + 128·(p − 1); gets and {@code hpput}s are issued as
 * core requests in the same superstep. Every receiver then copies the gets' bytes out, applies
 * the put records of its streams (so gets see the values before the puts) and indexes the
 * messages. When some process's stream does not fit its region, or it issued more gets and
 * hpputs than the current budget, or some process pushed a registration, the headers tell every
 * process so, and they continue with the <b>full protocol</b> on the same superstep's requests:
 * <ol>
 *   <li><b>grow</b> (when a capacity must grow: queue, register, R (up to 256 KiB), the budget;
 *       doubling, so amortised): an empty superstep that activates them;</li>
 *   <li><b>gets</b> (when some process has a get): every get, before any put;</li>
 *   <li><b>data</b>: every put as a core put from its record, and one get per (sender, receiver)
 *       pair of messages fetching the sender's message records.</li>
 * </ol>
 * So a superstep of puts, sends, gets and hpputs that fit costs one core superstep with
 * h = its bytes + the records' headers (24 bytes per put, 16 per message) + 128·(p − 1); an empty
 * superstep too. Copies: a {@code put} copies its source once at the call and once at the
 * receiver (the record applied), {@code hpput} from a registered area is put without a copy
 * (from another segment it is copied at the sync), a get's bytes are copied from the layer's
 * buffer into the destination after the sync, a message is copied at the send and by
 * {@link #move} ({@link #hpmove()} does not copy). The layer's bookkeeping per sync is
 * O(p + requests); no allocation per call once its buffers have grown.
 *
 * <h2>Threads</h2>
 * An object belongs to its process; use it from one thread at a time.
 */
public final class Bsplib implements AutoCloseable {

    /** Longs per stream header. */
    private static final int W = 16;
    private static final long HDR = 8L * W;
    private static final int H_STREAM = 0, H_REQS = 1, H_MSG_BYTES = 2, H_MSGS = 3, H_PAYLOAD = 4, H_OUTBOX_OFF = 5,
            H_OUT = 6, H_MAX_TO = 7, H_FLAGS = 8, H_TAG = 9, H_PUSH = 10, H_POP = 11, H_MAX_STREAM = 12, H_DIRECT = 13, H_POPPED = 14;
    private static final long F_GETS = 1, F_SENDS = 2, F_OUTBOX_GROWS = 4, F_INCOMPLETE = 8;
    /** Registrations of the layer: inbox regions and outbox (global); streams, receive, spill, put and get buffers. */
    private static final int OWN_REGS = 7;
    /** Record headers: a put's (registration, offset, size), a message's (kind, payload length). */
    private static final long PUT_HDR = 24, MSG_HDR = 16;
    /** Region bytes per destination: at first, and at most (larger streams take the full protocol). */
    private static final long R_INIT = 4096, R_MAX = 256 * 1024;
    /** Gets and hpputs a process may issue in the one-superstep sync: at first, and at most. */
    private static final long BUDGET_INIT = 16, BUDGET_MAX = 1L << 20;

    private final Context ctx;
    private final int pid;
    private final int nprocs;
    private final long start = System.nanoTime();
    private final AreaTable areas = new AreaTable();
    private final List<AreaTable.Reg> live = new ArrayList<>();
    private final List<AreaTable.Reg> bySeq = new ArrayList<>();
    private final List<AreaTable.Reg> pushes = new ArrayList<>();
    private final List<AreaTable.Reg> pops = new ArrayList<>();

    private long queueCap;
    private long regCap;
    private long budget = BUDGET_INIT;
    private long regionBytes = R_INIT;
    private boolean ended;

    /** p regions of regionBytes: the streams this process sends (local) and receives (global). */
    private MemorySegment streams, inboxes;
    private Memslot streamsSlot, inboxesSlot;
    private final long[] streamUsed;
    private final boolean[] spilled;

    // Buffers of the layer, registered locally at the sync; the outbox globally.
    private final Buffer spill = new Buffer("spill buffer");
    private final Buffer putBuf = new Buffer("hpput buffer");
    private final Buffer getBuf = new Buffer("get buffer");
    private final Buffer inbox = new Buffer("receive buffer");
    private MemorySegment outbox;
    private Memslot outboxSlot;

    // The buffered puts of this superstep (records in the streams or the spill buffer).
    private int nBp;
    private int[] bpPid = new int[16];
    private Memslot[] bpDst = new Memslot[16];
    private long[] bpDstOff = new long[16];
    private long[] bpSize = new long[16];
    private long[] bpLoc = new long[16];

    // The hpputs of this superstep.
    private int nHp;
    private int[] hpPid = new int[16];
    private Memslot[] hpDst = new Memslot[16];
    private long[] hpDstOff = new long[16];
    private long[] hpSize = new long[16];
    private Memslot[] hpSrc = new Memslot[16];            // null: from putBuf at hpSrcOff
    private long[] hpSrcOff = new long[16];
    private MemorySegment[] hpLate = new MemorySegment[16]; // an unregistered source: copied at the sync

    // The gets of this superstep.
    private int nGet;
    private int[] getPid = new int[16];
    private Memslot[] getSrc = new Memslot[16];
    private long[] getSrcOff = new long[16];
    private long[] getSize = new long[16];
    private MemorySegment[] getDst = new MemorySegment[16];
    private long[] getBufOff = new long[16];

    // The messages sent in this superstep (records in the streams or the spill buffer).
    private int nMsg;
    private int[] msgDst = new int[16];
    private long[] msgLoc = new long[16];
    private long[] msgLen = new long[16];
    private MemorySegment[] msgLateTag = new MemorySegment[16];     // hpsend: copied at the sync
    private MemorySegment[] msgLatePayload = new MemorySegment[16];

    private final long[] reqTo, recBytesTo, msgBytesTo, msgsTo, payloadTo, outboxOff, inboxOff, outboxFrom;

    private long tagSize, nextTagSize;

    // The receive queue of this superstep: message records by segment and offset.
    private long inTagSize;
    private int qHead, qEnd;
    private MemorySegment[] qSeg = new MemorySegment[16];
    private long[] qOff = new long[16];
    private long inPayload;

    private final class Buffer {
        final String name;
        MemorySegment seg = MemorySegment.NULL;
        Memslot slot;
        MemorySegment registered;
        long used;

        Buffer(String name) { this.name = name; }

        /** @return the offset of {@code n} fresh bytes (8-aligned), growing the buffer if needed */
        long take(long n) {
            long at = used, end = Math.addExact(at, align8(n));
            if (end > seg.byteSize()) grow(end, at);
            used = end;
            return at;
        }

        /** Makes room for {@code end} bytes, keeping the first {@code keep}. */
        void grow(long end, long keep) {
            MemorySegment bigger = Arena.ofAuto().allocate(Math.max(end, Math.max(64, 2 * seg.byteSize())), 8);
            if (keep > 0) MemorySegment.copy(seg, 0, bigger, 0, keep);
            seg = bigger;
        }

        /** Registers the current segment locally if it is not yet (the old slot is dropped first). */
        Memslot slot() {
            if (registered != seg) {
                if (slot != null) ctx.deregister(slot);
                slot = null;
                slot = ctx.registerLocal(seg);
                registered = seg;
            }
            return slot;
        }

        void release() {
            if (slot != null) ctx.deregister(slot);
            slot = null;
        }
    }

    private Bsplib(Context ctx) {
        this.ctx = ctx;
        this.pid = ctx.pid();
        this.nprocs = ctx.nprocs();
        int p = nprocs;
        reqTo = new long[p];
        recBytesTo = new long[p];
        msgBytesTo = new long[p];
        msgsTo = new long[p];
        payloadTo = new long[p];
        outboxOff = new long[p + 1];
        inboxOff = new long[p + 1];
        outboxFrom = new long[p];
        streamUsed = new long[p];
        spilled = new boolean[p];
        queueCap = fastQueue(p, budget);
        regCap = OWN_REGS + 1 + 8;
        ctx.resizeMemoryRegister(regCap);
        ctx.resizeMessageQueue(queueCap);
        ctx.sync();
        Arena arena = Arena.ofAuto();
        streams = arena.allocate(regionBytes * p, 8);
        inboxes = arena.allocate(regionBytes * p, 8);
        outbox = arena.allocate(64, 8);
        inboxesSlot = ctx.registerGlobal(inboxes);
        outboxSlot = ctx.registerGlobal(outbox);
        streamsSlot = ctx.registerLocal(streams);
        ctx.sync();
    }

    /** The queue one-superstep syncs need: p − 1 streams out and in, the budget out, p budgets in. */
    private static long fastQueue(int p, long budget) {
        return 2L * p + budget * (p + 1);
    }

    /**
     * Starts BSPlib on this process ({@code bsp_begin}, C LPF's {@code bsplib_create}). Collective:
     * every process of the context calls it. Sets the context's capacities and registers the
     * layer's buffers; costs two core supersteps and O(p) memory.
     *
     * @param ctx this process's context, which the layer then owns until {@link #end()}
     * @return the BSPlib state of this process
     */
    public static Bsplib begin(Context ctx) {
        Objects.requireNonNull(ctx, "Bsplib.begin: ctx");
        return new Bsplib(ctx);
    }

    /**
     * Runs {@code program} on {@code p} processes of the selected engine ({@link Lpf#root()}),
     * each with its own {@code Bsplib} from {@link #begin}, ended after the program returns.
     *
     * @param p       the number of processes asked for (see {@link Context#exec})
     * @param program what every process runs
     * @throws org.lpf4j.FatalException if a process threw or aborted (the cause says which)
     */
    public static void run(int p, BspProgram program) {
        Objects.requireNonNull(program, "Bsplib.run: program");
        Lpf.root().exec(p, ctx -> {
            try (Bsplib bsp = begin(ctx)) {
                program.run(bsp);
            }
        });
    }

    /**
     * Ends BSPlib on this process ({@code bsp_end}): deregisters every area and buffer. Collective.
     * Requests and messages not yet synchronised are dropped. No communication; idempotent.
     */
    public void end() {
        if (ended) return;
        ended = true;
        for (int i = live.size() - 1; i >= 0; i--) ctx.deregister(live.get(i).slot);
        live.clear();
        ctx.deregister(streamsSlot);
        ctx.deregister(outboxSlot);
        ctx.deregister(inboxesSlot);
        spill.release();
        putBuf.release();
        getBuf.release();
        inbox.release();
    }

    /** {@link #end()}. */
    @Override
    public void close() { end(); }

    /** @return the number of processes ({@code bsp_nprocs}); O(1) */
    public int nprocs() { return nprocs; }

    /** @return this process's id ({@code bsp_pid}); O(1) */
    public int pid() { return pid; }

    /** @return seconds since {@link #begin} on this process ({@code bsp_time}); O(1) */
    public double time() { return (System.nanoTime() - start) * 1e-9; }

    /** @return the context this layer runs on */
    public Context context() { return ctx; }

    // =====================================================================================
    // registration
    // =====================================================================================

    /**
     * Registers {@code area} ({@code bsp_push_reg}), usable from the next {@link #sync()} on as the
     * remote side of puts and gets by any segment starting where {@code area} starts. Collective
     * (same calls, same order). Pushing an area that is registered stacks a new registration of
     * {@code area}'s size on top. O(1).
     *
     * @param area memory every engine thread may access (heap, shared, global or automatic arena)
     */
    public void pushReg(MemorySegment area) {
        live();
        Objects.requireNonNull(area, "Bsplib.pushReg: area");
        if (area.isReadOnly()) throw new IllegalArgumentException(call("pushReg", "area=" + area) + ": the area is read-only");
        AreaTable.Reg r = new AreaTable.Reg(area, nprocs);
        r.seq = bySeq.size();
        bySeq.add(r);
        areas.push(r);
        pushes.add(r);
    }

    /**
     * Removes the latest active registration of the area starting where {@code area} starts
     * ({@code bsp_pop_reg}), at the next {@link #sync()}: until then the area stays usable. A push
     * of this superstep is not yet a registration (as in C LPF): it is not the one popped.
     * Collective, in the same order on every process. O(stack depth of the area).
     *
     * @param area the registered area
     * @throws IllegalArgumentException if the area has no registration left to pop
     */
    public void popReg(MemorySegment area) {
        live();
        Objects.requireNonNull(area, "Bsplib.popReg: area");
        AreaTable.Reg r = areas.top(area);
        boolean pending = false;
        while (r != null && r.state != AreaTable.Reg.ACTIVE) {
            pending |= r.state == AreaTable.Reg.PENDING;
            r = r.below;
        }
        if (r == null) {
            throw new IllegalArgumentException(call("popReg", "area=" + area) + ": the area has no registration to pop"
                    + (pending ? " (it was pushed in this superstep: pop it after the next sync)"
                    : " (never pushed, or every registration of it is popped)"));
        }
        r.state = AreaTable.Reg.POPPING;
        pops.add(r);
    }

    // =====================================================================================
    // DRMA
    // =====================================================================================

    /**
     * Buffered put ({@code bsp_put}): copies {@code nbytes} of {@code src} now, and writes them
     * into the area registered as {@code dst} on {@code pid} at {@code offset} during the next
     * sync. {@code src} may be changed right after the call. O(nbytes) copy into a native buffer;
     * no allocation once the buffer and the request arrays have grown.
     *
     * @param pid    destination process
     * @param src    the bytes to send (its first {@code nbytes})
     * @param dst    a registered area (by identity), the same on every process
     * @param offset byte offset in the destination area
     * @param nbytes bytes to put (0: nothing happens)
     * @throws IndexOutOfBoundsException if {@code pid} is out of range or an area is too small
     * @throws IllegalArgumentException  if {@code dst} is not registered (or only since this
     *                                   superstep) or a size is negative
     */
    public void put(int pid, MemorySegment src, MemorySegment dst, long offset, long nbytes) {
        if (nbytes == 0 && !ended) return; // legal whatever the other arguments, as in BSPlib
        AreaTable.Reg r = checkPut("put", pid, src, dst, offset, nbytes);
        long loc = place(pid, PUT_HDR + align8(nbytes));
        MemorySegment seg = segOf(loc);
        long at = offOf(loc);
        seg.set(JAVA_LONG, at, (long) r.seq << 1);
        seg.set(JAVA_LONG, at + 8, offset);
        seg.set(JAVA_LONG, at + 16, nbytes);
        MemorySegment.copy(src, 0, seg, at + PUT_HDR, nbytes);
        if (nBp == bpPid.length) growBps();
        int i = nBp++;
        bpPid[i] = pid;
        bpDst[i] = r.slot;
        bpDstOff[i] = offset;
        bpSize[i] = nbytes;
        bpLoc[i] = loc;
        reqTo[pid]++;
    }

    /**
     * Unbuffered put ({@code bsp_hpput}): as {@link #put}, but {@code src} is read during the next
     * sync and must not change until it returns. As in BSPlib it is not ordered with the gets of
     * the superstep (a get of the bytes it writes may see either value) nor with the other puts
     * to the same bytes (buffered puts usually land after it); use {@link #put} where that matters. From the start of a registered area it is put
     * without any copy by the layer; from another segment it is copied once, at the sync.
     * O(1) at the call.
     *
     * @param pid    destination process
     * @param src    the bytes to send (its first {@code nbytes}); kept until the sync
     * @param dst    a registered area
     * @param offset byte offset in the destination area
     * @param nbytes bytes to put
     */
    public void hpput(int pid, MemorySegment src, MemorySegment dst, long offset, long nbytes) {
        if (nbytes == 0 && !ended) return;
        AreaTable.Reg r = checkPut("hpput", pid, src, dst, offset, nbytes);
        AreaTable.Reg s = areas.usable(src);
        if (nHp == hpPid.length) growHps();
        int i = nHp++;
        hpPid[i] = pid;
        hpDst[i] = r.slot;
        hpDstOff[i] = offset;
        hpSize[i] = nbytes;
        boolean direct = s != null && nbytes <= s.size;
        hpSrc[i] = direct ? s.slot : null;
        hpSrcOff[i] = 0;
        hpLate[i] = direct ? null : src;
        reqTo[pid]++;
    }

    /**
     * Buffered get ({@code bsp_get}): reads {@code nbytes} at {@code offset} of the area registered
     * as {@code src} on {@code pid}, as it is before any put of this superstep is applied, into
     * {@code dst}, written by the next sync. O(1) at the call; the bytes arrive in the layer's
     * buffer and are copied into {@code dst} after the gets' superstep (O(nbytes)).
     *
     * @param pid    source process
     * @param src    a registered area (by identity)
     * @param offset byte offset in the source area
     * @param dst    where the bytes go (its first {@code nbytes}); must not be touched until the sync
     * @param nbytes bytes to get (0: nothing happens)
     * @throws IndexOutOfBoundsException if {@code pid} is out of range or an area is too small
     * @throws IllegalArgumentException  if {@code src} is not registered or a size is negative
     */
    public void get(int pid, MemorySegment src, long offset, MemorySegment dst, long nbytes) {
        addGet("get", pid, src, offset, dst, nbytes);
    }

    /**
     * Unbuffered get ({@code bsp_hpget}): the same as {@link #get} here (BSPlib lets it be served
     * at any time during the superstep; this layer serves it with the gets, before the puts).
     *
     * @param pid    source process
     * @param src    a registered area
     * @param offset byte offset in the source area
     * @param dst    where the bytes go
     * @param nbytes bytes to get
     */
    public void hpget(int pid, MemorySegment src, long offset, MemorySegment dst, long nbytes) {
        addGet("hpget", pid, src, offset, dst, nbytes);
    }

    private AreaTable.Reg checkPut(String name, int dstPid, MemorySegment src, MemorySegment dst, long offset, long nbytes) {
        live();
        checkPid(name, dstPid, offset, nbytes);
        if (dst == null) throw new NullPointerException(call(name, "pid=" + dstPid) + ": dst is null"); // not requireNonNull with a lambda: that allocates per call
        if (src == null) throw new NullPointerException(call(name, "pid=" + dstPid) + ": src is null");
        if (src.byteSize() < nbytes) {
            throw new IndexOutOfBoundsException(call(name, "pid=" + dstPid + ", offset=" + offset + ", nbytes=" + nbytes)
                    + ": the source has only " + src.byteSize() + " bytes");
        }
        return registered(name, dstPid, dst, offset, nbytes, "destination");
    }

    private void checkPid(String name, int other, long offset, long nbytes) {
        if (other < 0 || other >= nprocs) {
            throw new IndexOutOfBoundsException(call(name, "pid=" + other + ", offset=" + offset + ", nbytes=" + nbytes)
                    + ": pid out of range [0, " + nprocs + ")");
        }
        if (offset < 0 || nbytes < 0) {
            throw new IllegalArgumentException(call(name, "pid=" + other + ", offset=" + offset + ", nbytes=" + nbytes)
                    + ": offset and nbytes must not be negative");
        }
    }

    private AreaTable.Reg registered(String name, int other, MemorySegment area, long offset, long nbytes, String role) {
        AreaTable.Reg r = areas.usable(area);
        if (r == null) {
            String why = areas.top(area) != null ? "is registered only since this superstep (usable after the next sync)"
                    : "is not registered (pushReg it, then sync)";
            throw new IllegalArgumentException(call(name, "pid=" + other + ", offset=" + offset + ", nbytes=" + nbytes)
                    + ": the " + role + " area " + area + " " + why);
        }
        long size = r.sizes[other]; // the size pid `other` registered: areas may differ per process
        if (offset > size - nbytes) {
            throw new IndexOutOfBoundsException(call(name, "pid=" + other + ", offset=" + offset + ", nbytes=" + nbytes)
                    + ": offset + nbytes = " + (offset + nbytes) + " is past the " + role + " area of " + size
                    + " bytes that pid " + other + " registered");
        }
        return r;
    }

    /**
     * Places a record of {@code bytes} for {@code q}: in q's stream region while it fits and nothing
     * for q has spilled, else in the spill buffer. Keeps the per-destination totals.
     *
     * @return the record's offset in the streams (≥ 0) or the complement of its offset in the spill buffer
     */
    private long place(int q, long bytes) {
        recBytesTo[q] += bytes;
        if (!spilled[q] && HDR + streamUsed[q] + bytes <= regionBytes) {
            long at = q * regionBytes + HDR + streamUsed[q];
            streamUsed[q] += bytes;
            return at;
        }
        spilled[q] = true;
        return ~spill.take(bytes);
    }

    private MemorySegment segOf(long loc) { return loc >= 0 ? streams : spill.seg; }

    private static long offOf(long loc) { return loc >= 0 ? loc : ~loc; }

    private void addGet(String name, int srcPid, MemorySegment src, long offset, MemorySegment dst, long nbytes) {
        if (nbytes == 0 && !ended) return; // legal whatever the other arguments, as in BSPlib
        live();
        checkPid(name, srcPid, offset, nbytes);
        if (src == null) throw new NullPointerException(call(name, "pid=" + srcPid) + ": src is null");
        AreaTable.Reg r = registered(name, srcPid, src, offset, nbytes, "source");
        if (dst == null) throw new NullPointerException(call(name, "pid=" + srcPid) + ": dst is null");
        if (dst.byteSize() < nbytes || dst.isReadOnly()) {
            throw new IndexOutOfBoundsException(call(name, "pid=" + srcPid + ", offset=" + offset + ", nbytes=" + nbytes)
                    + ": the destination " + dst + " is " + (dst.isReadOnly() ? "read-only" : "smaller than nbytes"));
        }
        if (nGet == getPid.length) growGets();
        int i = nGet++;
        getPid[i] = srcPid;
        getSrc[i] = r.slot;
        getSrcOff[i] = offset;
        getSize[i] = nbytes;
        getDst[i] = dst;
        getBufOff[i] = getBuf.take(nbytes);
        reqTo[srcPid]++;
    }

    // =====================================================================================
    // BSMP
    // =====================================================================================

    /**
     * Sets the tag size of messages sent after the next sync ({@code bsp_set_tagsize}).
     * Collective: every process passes the same size in the same superstep (checked at the sync).
     *
     * @param size the new tag size in bytes, ≥ 0
     * @return the tag size of the current superstep
     */
    public long setTagsize(long size) {
        live();
        if (size < 0) throw new IllegalArgumentException(call("setTagsize", "size=" + size) + ": negative");
        long old = tagSize;
        nextTagSize = size;
        return old;
    }

    /** @return the tag size of messages sent in this superstep (as last set before a sync) */
    public long tagSize() { return tagSize; }

    /**
     * Sends a message ({@code bsp_send}): {@link #tagSize()} bytes of {@code tag} and
     * {@code nbytes} of {@code payload}, copied now, to be received by {@code pid} in the next
     * superstep. O(tag + nbytes) copy; no allocation once the buffers have grown.
     *
     * @param pid     destination (may be this process)
     * @param tag     the tag (its first {@code tagSize()} bytes); may be null when the size is 0
     * @param payload the payload (its first {@code nbytes}); may be null when {@code nbytes} is 0
     * @param nbytes  payload bytes, ≥ 0
     * @throws IndexOutOfBoundsException if {@code pid} is out of range or a segment is too small
     */
    public void send(int pid, MemorySegment tag, MemorySegment payload, long nbytes) {
        checkSend("send", pid, tag, payload, nbytes);
        long at = addMsg(pid, nbytes, null, null);
        copyMsg(at, tag, payload, nbytes);
    }

    /**
     * {@link #send(int, MemorySegment, MemorySegment, long)} of the whole payload.
     *
     * @param pid     destination
     * @param tag     the tag
     * @param payload the payload, all of it
     */
    public void send(int pid, MemorySegment tag, MemorySegment payload) {
        send(pid, tag, payload, payload == null ? 0 : payload.byteSize());
    }

    /**
     * Unbuffered send ({@code bsp_hpsend}): as {@link #send}, but the tag and payload are read
     * (copied) during the next sync and must not change until then. O(1) at the call.
     *
     * @param pid     destination
     * @param tag     the tag, kept until the sync
     * @param payload the payload, kept until the sync
     * @param nbytes  payload bytes
     */
    public void hpsend(int pid, MemorySegment tag, MemorySegment payload, long nbytes) {
        checkSend("hpsend", pid, tag, payload, nbytes);
        addMsg(pid, nbytes, tagSize == 0 ? null : tag, nbytes == 0 ? null : payload);
    }

    private void checkSend(String name, int dst, MemorySegment tag, MemorySegment payload, long nbytes) {
        live();
        checkPid(name, dst, 0, nbytes);
        if (tagSize > 0 && (tag == null || tag.byteSize() < tagSize)) {
            throw new IndexOutOfBoundsException(call(name, "pid=" + dst + ", nbytes=" + nbytes) + ": the tag must have "
                    + tagSize + " bytes (the tag size), it has " + (tag == null ? "none" : tag.byteSize() + ""));
        }
        if (nbytes > 0 && (payload == null || payload.byteSize() < nbytes)) {
            throw new IndexOutOfBoundsException(call(name, "pid=" + dst + ", nbytes=" + nbytes) + ": the payload has only "
                    + (payload == null ? 0 : payload.byteSize()) + " bytes");
        }
    }

    private long addMsg(int dst, long nbytes, MemorySegment lateTag, MemorySegment latePayload) {
        if (nMsg == msgDst.length) growMsgs();
        long rec = MSG_HDR + align8(tagSize) + align8(nbytes);
        long loc = place(dst, rec);
        MemorySegment seg = segOf(loc);
        long at = offOf(loc);
        seg.set(JAVA_LONG, at, 1);
        seg.set(JAVA_LONG, at + 8, nbytes);
        int i = nMsg++;
        msgDst[i] = dst;
        msgLoc[i] = loc;
        msgLen[i] = rec;
        msgLateTag[i] = lateTag;
        msgLatePayload[i] = latePayload;
        msgBytesTo[dst] += rec;
        msgsTo[dst]++;
        payloadTo[dst] += nbytes;
        return loc;
    }

    private void copyMsg(long loc, MemorySegment tag, MemorySegment payload, long nbytes) {
        MemorySegment seg = segOf(loc);
        long at = offOf(loc);
        if (tagSize > 0) MemorySegment.copy(tag, 0, seg, at + MSG_HDR, tagSize);
        if (nbytes > 0) MemorySegment.copy(payload, 0, seg, at + MSG_HDR + align8(tagSize), nbytes);
    }

    /**
     * The messages in the queue ({@code bsp_qsize}). O(1).
     *
     * @return the number of messages not yet moved
     */
    public long qsize() { return qEnd - qHead; }

    /** @return the payload bytes of the messages not yet moved ({@code bsp_qsize}'s second result); O(1) */
    public long qsizeBytes() { return inPayload; }

    /**
     * The next message's tag and payload length ({@code bsp_get_tag}). O(tag size).
     *
     * @param tag where the tag is copied (the first {@code tagSize} bytes of the superstep the
     *            message was sent in); may be null, then it is not copied
     * @return the next message's payload length, or -1 when the queue is empty
     */
    public long getTag(MemorySegment tag) {
        live();
        if (qHead == qEnd) return -1;
        MemorySegment seg = qSeg[qHead];
        long at = qOff[qHead];
        if (tag != null && inTagSize > 0) {
            if (tag.byteSize() < inTagSize) {
                throw new IndexOutOfBoundsException(call("getTag", "tag=" + tag) + ": the tag size is " + inTagSize);
            }
            MemorySegment.copy(seg, at + MSG_HDR, tag, 0, inTagSize);
        }
        return seg.get(JAVA_LONG, at + 8);
    }

    /** @return the tag size of the messages in the queue (that of the superstep they were sent in) */
    public long queueTagSize() { return inTagSize; }

    /**
     * Copies the next message's payload, at most {@code receptionBytes} of it, into
     * {@code payload} and removes the message ({@code bsp_move}). O(bytes copied).
     *
     * @param payload        where the payload goes
     * @param receptionBytes at most this many bytes are copied
     * @return the bytes copied
     * @throws IllegalStateException if the queue is empty
     */
    public long move(MemorySegment payload, long receptionBytes) {
        live();
        if (qHead == qEnd) throw new IllegalStateException(call("move", "receptionBytes=" + receptionBytes) + ": the queue is empty");
        if (receptionBytes < 0) throw new IllegalArgumentException(call("move", "receptionBytes=" + receptionBytes) + ": negative");
        MemorySegment seg = qSeg[qHead];
        long at = qOff[qHead];
        long len = seg.get(JAVA_LONG, at + 8), n = Math.min(len, receptionBytes);
        if (n > 0) {
            if (payload == null || payload.byteSize() < n) {
                throw new IndexOutOfBoundsException(call("move", "receptionBytes=" + receptionBytes)
                        + ": the payload segment has " + (payload == null ? 0 : payload.byteSize()) + " bytes, " + n + " to copy");
            }
            MemorySegment.copy(seg, at + MSG_HDR + align8(inTagSize), payload, 0, n);
        }
        advance(len);
        return n;
    }

    /**
     * {@link #move(MemorySegment, long)} of at most {@code payload.byteSize()} bytes.
     *
     * @param payload where the payload goes
     * @return the bytes copied
     */
    public long move(MemorySegment payload) { return move(payload, payload == null ? 0 : payload.byteSize()); }

    /**
     * Removes the next message and returns views of its tag and payload without copying
     * ({@code bsp_hpmove}); valid until the next sync. O(1) (two slices).
     *
     * @return the message, or null when the queue is empty
     */
    public BspMessage hpmove() {
        live();
        if (qHead == qEnd) return null;
        MemorySegment seg = qSeg[qHead];
        long at = qOff[qHead];
        long len = seg.get(JAVA_LONG, at + 8);
        MemorySegment ro = seg.asReadOnly();
        BspMessage m = new BspMessage(ro.asSlice(at + MSG_HDR, inTagSize), ro.asSlice(at + MSG_HDR + align8(inTagSize), len));
        advance(len);
        return m;
    }

    private void advance(long len) {
        qSeg[qHead++] = null;
        inPayload -= len;
    }

    /** Appends the message record at {@code at} of {@code seg} to the receive queue. */
    private void enqueue(MemorySegment seg, long at) {
        if (qEnd == qSeg.length) {
            qSeg = Arrays.copyOf(qSeg, 2 * qEnd);
            qOff = Arrays.copyOf(qOff, 2 * qEnd);
        }
        qSeg[qEnd] = seg;
        qOff[qEnd++] = at;
    }

    // =====================================================================================
    // abort
    // =====================================================================================

    /**
     * Aborts the whole computation ({@code bsp_abort}): never returns, throws a
     * {@link BspAbortException} naming this pid and {@code message}. Leaving the SPMD function
     * with it makes every other process's next sync throw {@link org.lpf4j.FatalException}, and
     * the {@code exec} throw one whose cause is that exception.
     *
     * @param message why
     * @return never returns normally; declared so that {@code throw bsp.abort(...)} compiles
     * @throws BspAbortException always
     */
    public BspAbortException abort(String message) {
        throw new BspAbortException("bsp_abort at pid " + pid + " of " + nprocs + ": " + message);
    }

    // =====================================================================================
    // sync
    // =====================================================================================

    /**
     * Ends the superstep ({@code bsp_sync}): collective. Applies the registrations and tag size of
     * this superstep, executes every get (before the puts), every put and delivers the messages;
     * the previous superstep's messages not moved are dropped. Cost: see the class comment (one
     * core superstep when everything fits, else the full protocol).
     *
     * @throws IllegalStateException     on every process, if the processes disagree on the number
     *                                   of pushReg/popReg calls or the tag size
     * @throws IndexOutOfBoundsException at a receiver whose registered area is smaller than a put
     *                                   to it (the section then fails)
     * @throws org.lpf4j.FatalException if the section failed (another process threw or aborted)
     */
    public void sync() {
        live();
        int p = nprocs;
        // hpsend and hpput read their sources now.
        for (int i = 0; i < nMsg; i++) {
            if (msgLateTag[i] != null || msgLatePayload[i] != null) {
                long len = segOf(msgLoc[i]).get(JAVA_LONG, offOf(msgLoc[i]) + 8);
                copyMsg(msgLoc[i], msgLateTag[i], msgLatePayload[i], len);
                msgLateTag[i] = null;
                msgLatePayload[i] = null;
            }
        }
        for (int i = 0; i < nHp; i++) {
            if (hpLate[i] != null) {
                long at = putBuf.take(hpSize[i]);
                MemorySegment.copy(hpLate[i], 0, putBuf.seg, at, hpSize[i]);
                hpSrcOff[i] = at;
                hpLate[i] = null;
            }
        }
        // ---- the headers, and the streams that fit
        long out = 0, maxTo = 0, maxStream = 0, popped = popped();
        boolean incomplete = nHp + nGet > budget;
        for (int q = 0; q < p; q++) {
            out += reqTo[q];
            maxTo = Math.max(maxTo, reqTo[q]);
            maxStream = Math.max(maxStream, recBytesTo[q]);
            outboxOff[q + 1] = outboxOff[q] + msgBytesTo[q];
            incomplete |= spilled[q];
        }
        long outboxNeed = outboxOff[p];
        long flags = (nGet > 0 ? F_GETS : 0) | (nMsg > 0 ? F_SENDS : 0) | (outboxNeed > outbox.byteSize() ? F_OUTBOX_GROWS : 0)
                | (incomplete ? F_INCOMPLETE : 0);
        for (int q = 0; q < p; q++) {
            long b = q * regionBytes;
            streams.set(JAVA_LONG, b + 8 * H_STREAM, spilled[q] ? 0 : streamUsed[q]);
            streams.set(JAVA_LONG, b + 8 * H_REQS, reqTo[q]);
            streams.set(JAVA_LONG, b + 8 * H_MSG_BYTES, msgBytesTo[q]);
            streams.set(JAVA_LONG, b + 8 * H_MSGS, msgsTo[q]);
            streams.set(JAVA_LONG, b + 8 * H_PAYLOAD, payloadTo[q]);
            streams.set(JAVA_LONG, b + 8 * H_OUTBOX_OFF, outboxOff[q]);
            streams.set(JAVA_LONG, b + 8 * H_OUT, out);
            streams.set(JAVA_LONG, b + 8 * H_MAX_TO, maxTo);
            streams.set(JAVA_LONG, b + 8 * H_FLAGS, flags);
            streams.set(JAVA_LONG, b + 8 * H_TAG, nextTagSize);
            streams.set(JAVA_LONG, b + 8 * H_PUSH, pushes.size());
            streams.set(JAVA_LONG, b + 8 * H_POP, pops.size());
            streams.set(JAVA_LONG, b + 8 * H_POPPED, popped);
            streams.set(JAVA_LONG, b + 8 * H_MAX_STREAM, maxStream);
            streams.set(JAVA_LONG, b + 8 * H_DIRECT, nHp + nGet);
            long n = HDR + (spilled[q] ? 0 : streamUsed[q]);
            // Own stream: copied, so that its messages outlive this superstep's new sends.
            if (q == pid) MemorySegment.copy(streams, b, inboxes, pid * regionBytes, n);
            else ctx.put(streamsSlot, b, q, inboxesSlot, pid * regionBytes, n);
        }
        if (!incomplete) issueDirect(true);
        ctx.sync();
        // ---- what the headers say (identical conclusions on every process)
        long maxOut = 0, sumMaxTo = 0, allFlags = 0, inBytes = 0, inMsgs = 0, inPay = 0, maxStreamAll = 0, maxDirect = 0;
        String mismatch = null;
        for (int r = 0; r < p; r++) {
            maxOut = Math.max(maxOut, header(r, H_OUT));
            sumMaxTo += header(r, H_MAX_TO);
            allFlags |= header(r, H_FLAGS);
            maxStreamAll = Math.max(maxStreamAll, header(r, H_MAX_STREAM));
            maxDirect = Math.max(maxDirect, header(r, H_DIRECT));
            inboxOff[r] = inBytes;
            inBytes += header(r, H_MSG_BYTES);
            inMsgs += header(r, H_MSGS);
            inPay += header(r, H_PAYLOAD);
            outboxFrom[r] = header(r, H_OUTBOX_OFF); // kept: a growing region replaces the inboxes
            if (mismatch == null) mismatch = compare(r);
        }
        inboxOff[p] = inBytes;
        if (mismatch != null) { // this superstep's registrations are void everywhere
            for (int i = 0; i < pushes.size(); i++) {
                areas.remove(pushes.get(i));
                bySeq.remove(bySeq.size() - 1);
            }
            for (int i = 0; i < pops.size(); i++) pops.get(i).state = AreaTable.Reg.ACTIVE;
            pushes.clear();
            pops.clear();
            nextTagSize = tagSize;
            clearQueue();
            resetSuperstep();
            throw new IllegalStateException("Bsplib.sync at pid " + pid + " of " + p + " (superstep " + ctx.superstep()
                    + "): the processes disagree: " + mismatch);
        }
        if ((allFlags & F_INCOMPLETE) == 0 && pushes.isEmpty()) {
            // ---- the one-superstep sync: gets out first, then the puts of every stream
            copyGetsOut();
            clearQueue();
            for (int r = 0; r < p; r++) applyStream(r, header(r, H_STREAM));
            finishSuperstep(inPay, 0);
            return;
        }
        fullProtocol(allFlags, maxOut, sumMaxTo, maxStreamAll, maxDirect, outboxNeed, inBytes, inPay);
    }

    /** The rest of a sync that did not fit one superstep (see the class comment). */
    private void fullProtocol(long allFlags, long maxOut, long sumMaxTo, long maxStreamAll, long maxDirect, long outboxNeed,
                              long inBytes, long inPay) {
        int p = nprocs;
        // ---- grow the capacities, collectively, when this superstep needs more
        long newBudget = budget, newRegion = regionBytes;
        while (newBudget < maxDirect && newBudget < BUDGET_MAX) newBudget *= 2;
        while (newRegion < HDR + maxStreamAll && newRegion < R_MAX) newRegion *= 2;
        while (newRegion < HDR + 8L * pushes.size()) newRegion *= 2; // the sizes of the pushed areas (below)
        long queueNeed = Math.max(fastQueue(p, newBudget), maxOut + sumMaxTo + ((allFlags & F_SENDS) != 0 ? 2L * p : 0)
                + (pushes.isEmpty() ? 0 : 2L * p));
        long regNeed = OWN_REGS + 1 + live.size() + pushes.size();
        boolean outboxGrows = (allFlags & F_OUTBOX_GROWS) != 0, regionGrows = newRegion != regionBytes;
        if (queueNeed > queueCap || regNeed > regCap || outboxGrows || regionGrows) {
            if (queueNeed > queueCap) {
                queueCap = Math.max(queueNeed, 2 * queueCap);
                ctx.resizeMessageQueue(queueCap);
            }
            if (regNeed > regCap) {
                regCap = Math.max(regNeed, 2 * regCap);
                ctx.resizeMemoryRegister(regCap);
            }
            // Collective re-registrations, in the same order everywhere (each drops its old slot first).
            if (outboxGrows) {
                ctx.deregister(outboxSlot);
                if (outboxNeed > outbox.byteSize()) outbox = Arena.ofAuto().allocate(Math.max(outboxNeed, 2 * outbox.byteSize()), 8);
                outboxSlot = ctx.registerGlobal(outbox);
            }
            if (regionGrows) { // the headers were read; this superstep's streams are sent by the data superstep
                ctx.deregister(inboxesSlot);
                inboxes = Arena.ofAuto().allocate(newRegion * p, 8);
                inboxesSlot = ctx.registerGlobal(inboxes);
                regionBytes = newRegion; // the streams (put sources below) follow at the end of the superstep
            }
            ctx.sync();
        }
        budget = newBudget;
        // ---- registrations of this superstep: active from the end of this sync
        for (int i = 0; i < pushes.size(); i++) pushes.get(i).slot = ctx.registerGlobal(pushes.get(i).area);
        // ---- gets, before any put
        if ((allFlags & F_GETS) != 0) {
            issueDirect(false);
            ctx.sync();
            copyGetsOut();
        }
        // ---- puts from their records, hpputs, and the messages fetched by their receivers
        Memslot ss = null, sp = null;
        for (int i = 0; i < nBp; i++) {
            long loc = bpLoc[i];
            Memslot src = loc >= 0 ? (ss != null ? ss : (ss = streamsSlot)) : (sp != null ? sp : (sp = spill.slot()));
            ctx.put(src, offOf(loc) + PUT_HDR, bpPid[i], bpDst[i], bpDstOff[i], bpSize[i]);
            bpDst[i] = null;
        }
        if (!pushes.isEmpty()) { // every process learns the size each process registered (inboxes are free now)
            long at = putBuf.take(8L * pushes.size()); // before issueHpputs registers putBuf
            for (int i = 0; i < pushes.size(); i++) putBuf.seg.set(JAVA_LONG, at + 8L * i, pushes.get(i).size);
            Memslot ps = putBuf.slot();
            for (int q = 0; q < p; q++) ctx.put(ps, at, q, inboxesSlot, pid * regionBytes, 8L * pushes.size());
        }
        issueHpputs();
        for (int i = 0; i < nMsg; i++) { // grouped per destination in the outbox
            int q = msgDst[i];
            MemorySegment.copy(segOf(msgLoc[i]), offOf(msgLoc[i]), outbox, outboxOff[q], msgLen[i]);
            outboxOff[q] += msgLen[i];
        }
        if (inBytes > 0) {
            if (inBytes > inbox.seg.byteSize()) inbox.grow(inBytes, 0);
            Memslot is = inbox.slot();
            for (int r = 0; r < p; r++) {
                long n = inboxOff[r + 1] - inboxOff[r];
                if (n > 0) ctx.get(r, outboxSlot, outboxFrom[r], is, inboxOff[r], n);
            }
        }
        ctx.sync();
        for (int i = 0; i < pushes.size(); i++) {
            long[] sizes = pushes.get(i).sizes;
            for (int r = 0; r < p; r++) sizes[r] = inboxes.get(JAVA_LONG, r * regionBytes + 8L * i);
        }
        clearQueue();
        for (long at = 0; at < inBytes; at += MSG_HDR + align8(tagSize) + align8(inbox.seg.get(JAVA_LONG, at + 8))) {
            enqueue(inbox.seg, at);
        }
        finishSuperstep(inPay, streams.byteSize() != regionBytes * p ? regionBytes : 0);
    }

    /** Queues the gets, and with {@code hpputs} the hpputs, as core requests. */
    private void issueDirect(boolean hpputs) {
        if (nGet > 0) {
            Memslot gs = getBuf.slot();
            for (int i = 0; i < nGet; i++) ctx.get(getPid[i], getSrc[i], getSrcOff[i], gs, getBufOff[i], getSize[i]);
        }
        if (hpputs) issueHpputs();
    }

    private void issueHpputs() {
        if (nHp == 0) return;
        Memslot ps = putBuf.slot();
        for (int i = 0; i < nHp; i++) ctx.put(hpSrc[i] == null ? ps : hpSrc[i], hpSrcOff[i], hpPid[i], hpDst[i], hpDstOff[i], hpSize[i]);
    }

    private void copyGetsOut() {
        for (int i = 0; i < nGet; i++) {
            MemorySegment.copy(getBuf.seg, getBufOff[i], getDst[i], 0, getSize[i]);
            getDst[i] = null;
        }
    }

    /** Applies the put records of the stream from {@code r} and queues its messages. */
    private void applyStream(int r, long bytes) {
        long base = r * regionBytes + HDR, end = base + bytes, tagBytes = align8(tagSize);
        for (long at = base; at < end; ) {
            long kind = inboxes.get(JAVA_LONG, at);
            if (kind == 1) {
                enqueue(inboxes, at);
                at += MSG_HDR + tagBytes + align8(inboxes.get(JAVA_LONG, at + 8));
                continue;
            }
            int seq = (int) (kind >>> 1);
            long off = inboxes.get(JAVA_LONG, at + 8), size = inboxes.get(JAVA_LONG, at + 16);
            AreaTable.Reg reg = seq < bySeq.size() ? bySeq.get(seq) : null;
            if (reg == null || !reg.usable()) {
                throw new IllegalStateException("Bsplib.sync at pid " + pid + ": a put from pid " + r
                        + " names registration #" + seq + ", which is not registered here");
            }
            if (off > reg.size - size) {
                throw new IndexOutOfBoundsException("Bsplib.sync at pid " + pid + ": a put from pid " + r + " of " + size
                        + " bytes at offset " + off + " is past this process's registered area of " + reg.size + " bytes");
            }
            MemorySegment.copy(inboxes, at + PUT_HDR, reg.area, off, size);
            at += PUT_HDR + align8(size);
        }
    }

    private long header(int r, int field) {
        return inboxes.get(JAVA_LONG, r * regionBytes + 8L * field);
    }

    /** @return a digest of which registrations this superstep pops, in order (they must agree) */
    private long popped() {
        long h = 0;
        for (int i = 0; i < pops.size(); i++) h = h * 0x9E3779B97F4A7C15L + pops.get(i).seq + 1;
        return h;
    }

    private String compare(int r) {
        long push = header(r, H_PUSH), pop = header(r, H_POP), tag = header(r, H_TAG);
        if (push != pushes.size()) return "pushReg called " + pushes.size() + " times here, " + push + " times at pid " + r;
        if (pop != pops.size()) return "popReg called " + pops.size() + " times here, " + pop + " times at pid " + r;
        if (header(r, H_POPPED) != popped()) {
            return "popReg removes other registrations here than at pid " + r
                    + " (each pops the latest registration of the area it names: the areas or their order differ)";
        }
        if (tag != nextTagSize) return "tag size " + nextTagSize + " here, " + tag + " at pid " + r;
        return null;
    }

    private void clearQueue() {
        Arrays.fill(qSeg, 0, qEnd, null);
        qHead = 0;
        qEnd = 0;
        inPayload = 0;
    }

    /**
     * Ends the superstep: pops and pushes take effect, the tag size changes, the queue holds the
     * messages just received; with {@code newRegion} &gt; 0 the streams grow to it.
     */
    private void finishSuperstep(long inPay, long newRegion) {
        for (int i = 0; i < pops.size(); i++) { // indexed loops: no iterator per sync
            AreaTable.Reg r = pops.get(i);
            ctx.deregister(r.slot);
            areas.remove(r);
            live.remove(r);
            bySeq.set(r.seq, null);
        }
        for (int i = 0; i < pushes.size(); i++) {
            pushes.get(i).state = AreaTable.Reg.ACTIVE;
            live.add(pushes.get(i));
        }
        pushes.clear();
        pops.clear();
        inTagSize = tagSize;
        tagSize = nextTagSize;
        inPayload = inPay;
        if (newRegion > 0) {
            ctx.deregister(streamsSlot);
            streams = Arena.ofAuto().allocate(newRegion * nprocs, 8);
            streamsSlot = ctx.registerLocal(streams);
        }
        resetSuperstep();
    }

    private void resetSuperstep() {
        nBp = 0;
        nHp = 0;
        nGet = 0;
        nMsg = 0;
        spill.used = 0;
        putBuf.used = 0;
        getBuf.used = 0;
        Arrays.fill(reqTo, 0);
        Arrays.fill(recBytesTo, 0);
        Arrays.fill(msgBytesTo, 0);
        Arrays.fill(msgsTo, 0);
        Arrays.fill(payloadTo, 0);
        Arrays.fill(streamUsed, 0);
        Arrays.fill(spilled, false);
    }

    // =====================================================================================
    // helpers
    // =====================================================================================

    private void live() {
        if (ended) throw new IllegalStateException("Bsplib at pid " + pid + ": used after end()");
    }

    private String call(String name, String args) {
        return "Bsplib." + name + "(" + args + ") at pid " + pid + " of " + nprocs;
    }

    private static long align8(long n) { return (n + 7) & ~7L; }

    private void growBps() {
        int n = bpPid.length * 2;
        bpPid = Arrays.copyOf(bpPid, n);
        bpDst = Arrays.copyOf(bpDst, n);
        bpDstOff = Arrays.copyOf(bpDstOff, n);
        bpSize = Arrays.copyOf(bpSize, n);
        bpLoc = Arrays.copyOf(bpLoc, n);
    }

    private void growHps() {
        int n = hpPid.length * 2;
        hpPid = Arrays.copyOf(hpPid, n);
        hpDst = Arrays.copyOf(hpDst, n);
        hpDstOff = Arrays.copyOf(hpDstOff, n);
        hpSize = Arrays.copyOf(hpSize, n);
        hpSrc = Arrays.copyOf(hpSrc, n);
        hpSrcOff = Arrays.copyOf(hpSrcOff, n);
        hpLate = Arrays.copyOf(hpLate, n);
    }

    private void growGets() {
        int n = getPid.length * 2;
        getPid = Arrays.copyOf(getPid, n);
        getSrc = Arrays.copyOf(getSrc, n);
        getSrcOff = Arrays.copyOf(getSrcOff, n);
        getSize = Arrays.copyOf(getSize, n);
        getDst = Arrays.copyOf(getDst, n);
        getBufOff = Arrays.copyOf(getBufOff, n);
    }

    private void growMsgs() {
        int n = msgDst.length * 2;
        msgDst = Arrays.copyOf(msgDst, n);
        msgLoc = Arrays.copyOf(msgLoc, n);
        msgLen = Arrays.copyOf(msgLen, n);
        msgLateTag = Arrays.copyOf(msgLateTag, n);
        msgLatePayload = Arrays.copyOf(msgLatePayload, n);
    }
}
