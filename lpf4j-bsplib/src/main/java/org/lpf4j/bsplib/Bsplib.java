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
 *       next sync; until then the area stays usable).</li>
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
 * effect. Collective mismatches (push/pop counts, tag sizes) are found at the sync and thrown there
 * on every process alike.
 *
 * <h2>Capacities</h2>
 * The user sizes nothing: the layer owns the context's message queue and memory register and
 * grows both at a sync, collectively, when the superstep needs more (one extra empty core
 * superstep then; capacities never shrink). While a {@code Bsplib} is open the program must not
 * use its {@code Context} for its own registrations or requests.
 *
 * <h2>How a sync works, and its cost</h2>
 * {@link #sync()} makes these core supersteps:
 * <ol>
 *   <li><b>meta</b>: each process puts to every other one a record of 12 longs (its requests to
 *       that process, its messages and their bytes for it, and its totals and collective
 *       arguments): {@code p − 1} puts, h = 96·(p − 1) bytes;</li>
 *   <li><b>grow</b> (only when a capacity must grow, amortised by doubling): an empty superstep
 *       that activates the new capacities;</li>
 *   <li><b>gets</b> (only when some process has a get): every get, so that each reads the source
 *       before any put of the superstep is applied;</li>
 *   <li><b>data</b> (skipped when no process has anything): every put, and one get per
 *       (sender, receiver) pair of messages fetching the sender's records for the receiver.</li>
 * </ol>
 * So a superstep of puts costs two core supersteps (2·l + g·(h + 96·(p − 1))), one with gets three,
 * an empty one one. The bytes: a {@code put} copies its source into a native buffer at the call
 * (O(nbytes), no allocation once the buffer has grown), {@code hpput} from a registered area is
 * put without a copy (from another segment it is copied at the sync), a get into an area that is
 * not registered lands in a buffer and is copied out after the sync, a message is copied at the
 * send, once more at the sync (grouped per destination) and once more by {@link #move}
 * ({@link #hpmove()} does not copy). The layer's bookkeeping per sync is O(p + requests).
 *
 * <h2>Threads</h2>
 * An object belongs to its process; use it from one thread at a time.
 */
public final class Bsplib implements AutoCloseable {

    /** Longs per meta record. */
    private static final int W = 12;
    private static final int M_REQS = 0, M_MSG_BYTES = 1, M_MSGS = 2, M_PAYLOAD = 3, M_OUTBOX_OFF = 4, M_OUT = 5,
            M_MAX_TO = 6, M_FLAGS = 7, M_TAG = 8, M_PUSH = 9, M_POP = 10;
    private static final long F_GETS = 1, F_SENDS = 2, F_OUTBOX_GROWS = 4, F_ANY = 8;
    /** The layer's own registrations: meta in (global), meta out, outbox (global), inbox, put and get buffers. */
    private static final int OWN_REGS = 6;
    /** A message record's header: the payload length. */
    private static final long HEADER = 8;

    private final Context ctx;
    private final int pid;
    private final int nprocs;
    private final long start = System.nanoTime();
    private final AreaTable areas = new AreaTable();
    private final List<AreaTable.Reg> live = new ArrayList<>();
    private final List<AreaTable.Reg> pushes = new ArrayList<>();
    private final List<AreaTable.Reg> pops = new ArrayList<>();

    private long queueCap;
    private long regCap;
    private boolean ended;

    private final MemorySegment metaIn, metaOut;
    private final Memslot metaInSlot, metaOutSlot;

    // Buffers of the layer; each registered (locally, or globally for the outbox) at the sync.
    private final Buffer putBuf = new Buffer("put buffer");
    private final Buffer getBuf = new Buffer("get buffer");
    private final Buffer msgBuf = new Buffer("send buffer");
    private final Buffer inbox = new Buffer("receive buffer");
    private MemorySegment outbox;
    private Memslot outboxSlot;

    // The puts of this superstep (struct of arrays, reused).
    private int nPut;
    private int[] putPid = new int[16];
    private Memslot[] putDst = new Memslot[16];
    private long[] putDstOff = new long[16];
    private long[] putSize = new long[16];
    private Memslot[] putSrc = new Memslot[16];        // null: from putBuf at putSrcOff
    private long[] putSrcOff = new long[16];
    private MemorySegment[] putLate = new MemorySegment[16]; // hpput of an unregistered source: copied at the sync

    // The gets of this superstep.
    private int nGet;
    private int[] getPid = new int[16];
    private Memslot[] getSrc = new Memslot[16];
    private long[] getSrcOff = new long[16];
    private long[] getSize = new long[16];
    private MemorySegment[] getDst = new MemorySegment[16];
    private long[] getBufOff = new long[16];

    // The messages sent in this superstep: records in msgBuf.
    private int nMsg;
    private int[] msgDst = new int[16];
    private long[] msgOff = new long[16];
    private long[] msgLen = new long[16];
    private MemorySegment[] msgLateTag = new MemorySegment[16];     // hpsend: copied at the sync
    private MemorySegment[] msgLatePayload = new MemorySegment[16];

    private final long[] reqTo, msgBytesTo, msgsTo, payloadTo, outboxOff, inboxOff;

    private long tagSize, nextTagSize;

    // The receive queue of this superstep.
    private long inTagSize;
    private long inCursor, inMessages, inPayload;

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
        msgBytesTo = new long[p];
        msgsTo = new long[p];
        payloadTo = new long[p];
        outboxOff = new long[p + 1];
        inboxOff = new long[p + 1];
        queueCap = Math.max(16, 4L * p);
        regCap = OWN_REGS + 1 + 8;
        ctx.resizeMemoryRegister(regCap);
        ctx.resizeMessageQueue(queueCap);
        ctx.sync();
        Arena arena = Arena.ofAuto();
        metaIn = arena.allocate(8L * W * p, 8);
        metaOut = arena.allocate(8L * W * p, 8);
        outbox = arena.allocate(64, 8);
        metaInSlot = ctx.registerGlobal(metaIn);
        outboxSlot = ctx.registerGlobal(outbox);
        metaOutSlot = ctx.registerLocal(metaOut);
        ctx.sync();
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
        ctx.deregister(metaOutSlot);
        ctx.deregister(outboxSlot);
        ctx.deregister(metaInSlot);
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
        AreaTable.Reg r = new AreaTable.Reg(area);
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
        AreaTable.Reg r = checkPut("put", pid, src, dst, offset, nbytes);
        if (nbytes == 0) return;
        long at = putBuf.take(nbytes);
        MemorySegment.copy(src, 0, putBuf.seg, at, nbytes);
        addPut(pid, r.slot, offset, nbytes, null, at, null);
    }

    /**
     * Unbuffered put ({@code bsp_hpput}): as {@link #put}, but {@code src} is read during the next
     * sync and must not change until it returns. From the start of a registered area it is put
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
        AreaTable.Reg r = checkPut("hpput", pid, src, dst, offset, nbytes);
        if (nbytes == 0) return;
        AreaTable.Reg s = areas.usable(src);
        if (s != null && nbytes <= s.size) addPut(pid, r.slot, offset, nbytes, s.slot, 0, null);
        else addPut(pid, r.slot, offset, nbytes, null, 0, src);
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
        Objects.requireNonNull(dst, () -> call(name, "pid=" + dstPid) + ": dst is null");
        if (nbytes > 0) {
            Objects.requireNonNull(src, () -> call(name, "pid=" + dstPid) + ": src is null");
            if (src.byteSize() < nbytes) {
                throw new IndexOutOfBoundsException(call(name, "pid=" + dstPid + ", offset=" + offset + ", nbytes=" + nbytes)
                        + ": the source has only " + src.byteSize() + " bytes");
            }
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
        if (offset > r.size - nbytes) {
            throw new IndexOutOfBoundsException(call(name, "pid=" + other + ", offset=" + offset + ", nbytes=" + nbytes)
                    + ": offset + nbytes = " + (offset + nbytes) + " is past the registered " + role + " area of "
                    + r.size + " bytes");
        }
        return r;
    }

    private void addPut(int dstPid, Memslot dst, long dstOff, long n, Memslot src, long srcOff, MemorySegment late) {
        if (nPut == putPid.length) growPuts();
        int i = nPut++;
        putPid[i] = dstPid;
        putDst[i] = dst;
        putDstOff[i] = dstOff;
        putSize[i] = n;
        putSrc[i] = src;
        putSrcOff[i] = srcOff;
        putLate[i] = late;
        reqTo[dstPid]++;
    }

    private void addGet(String name, int srcPid, MemorySegment src, long offset, MemorySegment dst, long nbytes) {
        live();
        checkPid(name, srcPid, offset, nbytes);
        Objects.requireNonNull(src, () -> call(name, "pid=" + srcPid) + ": src is null");
        AreaTable.Reg r = registered(name, srcPid, src, offset, nbytes, "source");
        if (nbytes == 0) return;
        Objects.requireNonNull(dst, () -> call(name, "pid=" + srcPid) + ": dst is null");
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
        long rec = HEADER + align8(tagSize) + align8(nbytes);
        long at = msgBuf.take(rec);
        msgBuf.seg.set(JAVA_LONG, at, nbytes);
        int i = nMsg++;
        msgDst[i] = dst;
        msgOff[i] = at;
        msgLen[i] = rec;
        msgLateTag[i] = lateTag;
        msgLatePayload[i] = latePayload;
        msgBytesTo[dst] += rec;
        msgsTo[dst]++;
        payloadTo[dst] += nbytes;
        return at;
    }

    private void copyMsg(long at, MemorySegment tag, MemorySegment payload, long nbytes) {
        if (tagSize > 0) MemorySegment.copy(tag, 0, msgBuf.seg, at + HEADER, tagSize);
        if (nbytes > 0) MemorySegment.copy(payload, 0, msgBuf.seg, at + HEADER + align8(tagSize), nbytes);
    }

    /**
     * The messages in the queue ({@code bsp_qsize}). O(1).
     *
     * @return the number of messages not yet moved
     */
    public long qsize() { return inMessages; }

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
        if (inMessages == 0) return -1;
        if (tag != null && inTagSize > 0) {
            if (tag.byteSize() < inTagSize) {
                throw new IndexOutOfBoundsException(call("getTag", "tag=" + tag) + ": the tag size is " + inTagSize);
            }
            MemorySegment.copy(inbox.seg, inCursor + HEADER, tag, 0, inTagSize);
        }
        return inbox.seg.get(JAVA_LONG, inCursor);
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
        if (inMessages == 0) throw new IllegalStateException(call("move", "receptionBytes=" + receptionBytes) + ": the queue is empty");
        if (receptionBytes < 0) throw new IllegalArgumentException(call("move", "receptionBytes=" + receptionBytes) + ": negative");
        long len = inbox.seg.get(JAVA_LONG, inCursor), n = Math.min(len, receptionBytes);
        if (n > 0) {
            if (payload == null || payload.byteSize() < n) {
                throw new IndexOutOfBoundsException(call("move", "receptionBytes=" + receptionBytes)
                        + ": the payload segment has " + (payload == null ? 0 : payload.byteSize()) + " bytes, " + n + " to copy");
            }
            MemorySegment.copy(inbox.seg, inCursor + HEADER + align8(inTagSize), payload, 0, n);
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
        if (inMessages == 0) return null;
        long len = inbox.seg.get(JAVA_LONG, inCursor);
        MemorySegment ro = inbox.seg.asReadOnly();
        BspMessage m = new BspMessage(ro.asSlice(inCursor + HEADER, inTagSize),
                ro.asSlice(inCursor + HEADER + align8(inTagSize), len));
        advance(len);
        return m;
    }

    private void advance(long len) {
        inCursor += HEADER + align8(inTagSize) + align8(len);
        inMessages--;
        inPayload -= len;
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
     * the previous superstep's messages not moved are dropped. Cost: see the class comment (two
     * core supersteps for one of puts, three with gets, one when nothing happened anywhere).
     *
     * @throws IllegalStateException     on every process, if the processes disagree on the number
     *                                   of pushReg/popReg calls or the tag size
     * @throws org.lpf4j.FatalException if the section failed (another process threw or aborted)
     */
    public void sync() {
        live();
        int p = nprocs;
        // hpsend and hpput read their sources now.
        for (int i = 0; i < nMsg; i++) {
            if (msgLateTag[i] != null || msgLatePayload[i] != null) {
                long len = msgBuf.seg.get(JAVA_LONG, msgOff[i]);
                copyMsg(msgOff[i], msgLateTag[i], msgLatePayload[i], len);
                msgLateTag[i] = null;
                msgLatePayload[i] = null;
            }
        }
        for (int i = 0; i < nPut; i++) {
            if (putLate[i] != null) {
                long at = putBuf.take(putSize[i]);
                MemorySegment.copy(putLate[i], 0, putBuf.seg, at, putSize[i]);
                putSrcOff[i] = at;
                putLate[i] = null;
            }
        }
        // ---- meta superstep: everyone learns what everyone needs
        long out = 0, maxTo = 0;
        for (int q = 0; q < p; q++) {
            out += reqTo[q];
            maxTo = Math.max(maxTo, reqTo[q]);
            outboxOff[q + 1] = outboxOff[q] + msgBytesTo[q];
        }
        long outboxNeed = outboxOff[p];
        long flags = (nGet > 0 ? F_GETS : 0) | (nMsg > 0 ? F_SENDS : 0) | (outboxNeed > outbox.byteSize() ? F_OUTBOX_GROWS : 0)
                | (nPut + nGet + nMsg + pushes.size() + pops.size() > 0 ? F_ANY : 0);
        for (int q = 0; q < p; q++) {
            long b = 8L * W * q;
            metaOut.set(JAVA_LONG, b + 8 * M_REQS, reqTo[q]);
            metaOut.set(JAVA_LONG, b + 8 * M_MSG_BYTES, msgBytesTo[q]);
            metaOut.set(JAVA_LONG, b + 8 * M_MSGS, msgsTo[q]);
            metaOut.set(JAVA_LONG, b + 8 * M_PAYLOAD, payloadTo[q]);
            metaOut.set(JAVA_LONG, b + 8 * M_OUTBOX_OFF, outboxOff[q]);
            metaOut.set(JAVA_LONG, b + 8 * M_OUT, out);
            metaOut.set(JAVA_LONG, b + 8 * M_MAX_TO, maxTo);
            metaOut.set(JAVA_LONG, b + 8 * M_FLAGS, flags);
            metaOut.set(JAVA_LONG, b + 8 * M_TAG, nextTagSize);
            metaOut.set(JAVA_LONG, b + 8 * M_PUSH, pushes.size());
            metaOut.set(JAVA_LONG, b + 8 * M_POP, pops.size());
            if (q == pid) MemorySegment.copy(metaOut, b, metaIn, 8L * W * pid, 8L * W);
            else ctx.put(metaOutSlot, b, q, metaInSlot, 8L * W * pid, 8L * W);
        }
        ctx.sync();
        // ---- what the meta says (identical conclusions on every process)
        long maxOut = 0, sumMaxTo = 0, allFlags = 0, inBytes = 0, inMsgs = 0, inPay = 0;
        String mismatch = null;
        for (int r = 0; r < p; r++) {
            long b = 8L * W * r;
            maxOut = Math.max(maxOut, metaIn.get(JAVA_LONG, b + 8 * M_OUT));
            sumMaxTo += metaIn.get(JAVA_LONG, b + 8 * M_MAX_TO);
            allFlags |= metaIn.get(JAVA_LONG, b + 8 * M_FLAGS);
            inboxOff[r] = inBytes;
            inBytes += metaIn.get(JAVA_LONG, b + 8 * M_MSG_BYTES);
            inMsgs += metaIn.get(JAVA_LONG, b + 8 * M_MSGS);
            inPay += metaIn.get(JAVA_LONG, b + 8 * M_PAYLOAD);
            if (mismatch == null) mismatch = compare(r, b);
        }
        inboxOff[p] = inBytes;
        if (mismatch != null) { // this superstep's registrations are void everywhere
            for (AreaTable.Reg r : pushes) areas.remove(r);
            for (AreaTable.Reg r : pops) r.state = AreaTable.Reg.ACTIVE;
            pushes.clear();
            pops.clear();
            nextTagSize = tagSize;
            inMessages = 0;
            inPayload = 0;
            resetSuperstep();
            throw new IllegalStateException("Bsplib.sync at pid " + pid + " of " + p + " (superstep " + ctx.superstep()
                    + "): the processes disagree: " + mismatch);
        }
        if ((allFlags & F_ANY) == 0) { // nothing anywhere: the meta superstep was the sync
            finishSuperstep(0, 0, 0);
            return;
        }
        // ---- grow the capacities, collectively, when this superstep needs more
        long queueNeed = Math.max(4L * p, maxOut + sumMaxTo + ((allFlags & F_SENDS) != 0 ? 2L * p : 0));
        long regNeed = OWN_REGS + 1 + live.size() + pushes.size();
        boolean outboxGrows = (allFlags & F_OUTBOX_GROWS) != 0;
        if (queueNeed > queueCap || regNeed > regCap || outboxGrows) {
            if (queueNeed > queueCap) {
                queueCap = Math.max(queueNeed, 2 * queueCap);
                ctx.resizeMessageQueue(queueCap);
            }
            if (regNeed > regCap) {
                regCap = Math.max(regNeed, 2 * regCap);
                ctx.resizeMemoryRegister(regCap);
            }
            if (outboxGrows) { // collective: everyone registers its outbox anew, grown or not
                ctx.deregister(outboxSlot);
                if (outboxNeed > outbox.byteSize()) {
                    outbox = Arena.ofAuto().allocate(Math.max(outboxNeed, 2 * outbox.byteSize()), 8);
                }
                outboxSlot = ctx.registerGlobal(outbox);
            }
            ctx.sync();
        }
        // ---- registrations of this superstep: active from the end of this sync
        for (AreaTable.Reg r : pushes) r.slot = ctx.registerGlobal(r.area);
        // ---- gets, before any put
        if ((allFlags & F_GETS) != 0) {
            if (nGet > 0) {
                Memslot gs = getBuf.slot();
                for (int i = 0; i < nGet; i++) ctx.get(getPid[i], getSrc[i], getSrcOff[i], gs, getBufOff[i], getSize[i]);
            }
            ctx.sync();
            for (int i = 0; i < nGet; i++) {
                MemorySegment.copy(getBuf.seg, getBufOff[i], getDst[i], 0, getSize[i]);
                getDst[i] = null;
            }
        }
        // ---- puts and messages
        if (nPut > 0) {
            Memslot ps = putBuf.slot();
            for (int i = 0; i < nPut; i++) {
                Memslot src = putSrc[i] == null ? ps : putSrc[i];
                ctx.put(src, putSrcOff[i], putPid[i], putDst[i], putDstOff[i], putSize[i]);
                putSrc[i] = null;
                putDst[i] = null;
            }
        }
        if (nMsg > 0) { // group the records per destination in the outbox
            for (int i = 0; i < nMsg; i++) {
                int q = msgDst[i];
                MemorySegment.copy(msgBuf.seg, msgOff[i], outbox, outboxOff[q], msgLen[i]);
                outboxOff[q] += msgLen[i];
            }
        }
        if (inBytes > 0) {
            if (inBytes > inbox.seg.byteSize()) inbox.grow(inBytes, 0);
            Memslot is = inbox.slot();
            for (int r = 0; r < p; r++) {
                long n = inboxOff[r + 1] - inboxOff[r];
                if (n > 0) ctx.get(r, outboxSlot, metaIn.get(JAVA_LONG, 8L * W * r + 8 * M_OUTBOX_OFF), is, inboxOff[r], n);
            }
        }
        ctx.sync();
        finishSuperstep(inBytes, inMsgs, inPay);
    }

    private String compare(int r, long b) {
        long push = metaIn.get(JAVA_LONG, b + 8 * M_PUSH), pop = metaIn.get(JAVA_LONG, b + 8 * M_POP),
                tag = metaIn.get(JAVA_LONG, b + 8 * M_TAG);
        if (push != pushes.size()) return "pushReg called " + pushes.size() + " times here, " + push + " times at pid " + r;
        if (pop != pops.size()) return "popReg called " + pops.size() + " times here, " + pop + " times at pid " + r;
        if (tag != nextTagSize) return "tag size " + nextTagSize + " here, " + tag + " at pid " + r;
        return null;
    }

    private void finishSuperstep(long inBytes, long inMsgs, long inPay) {
        for (AreaTable.Reg r : pops) {
            ctx.deregister(r.slot);
            areas.remove(r);
            live.remove(r);
        }
        for (AreaTable.Reg r : pushes) {
            r.state = AreaTable.Reg.ACTIVE;
            live.add(r);
        }
        pushes.clear();
        pops.clear();
        inTagSize = tagSize;
        tagSize = nextTagSize;
        inCursor = 0;
        inMessages = inMsgs;
        inPayload = inPay;
        resetSuperstep();
    }

    private void resetSuperstep() {
        nPut = 0;
        nGet = 0;
        nMsg = 0;
        putBuf.used = 0;
        getBuf.used = 0;
        msgBuf.used = 0;
        Arrays.fill(reqTo, 0);
        Arrays.fill(msgBytesTo, 0);
        Arrays.fill(msgsTo, 0);
        Arrays.fill(payloadTo, 0);
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

    private void growPuts() {
        int n = putPid.length * 2;
        putPid = Arrays.copyOf(putPid, n);
        putDst = Arrays.copyOf(putDst, n);
        putDstOff = Arrays.copyOf(putDstOff, n);
        putSize = Arrays.copyOf(putSize, n);
        putSrc = Arrays.copyOf(putSrc, n);
        putSrcOff = Arrays.copyOf(putSrcOff, n);
        putLate = Arrays.copyOf(putLate, n);
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
        msgOff = Arrays.copyOf(msgOff, n);
        msgLen = Arrays.copyOf(msgLen, n);
        msgLateTag = Arrays.copyOf(msgLateTag, n);
        msgLatePayload = Arrays.copyOf(msgLatePayload, n);
    }
}
