package org.lpf4j.bsplib;

import org.lpf4j.Context;
import org.lpf4j.Lpf;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

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
 *       and a put or get is checked against the size its target process registered. A process
 *       with nothing to register may push {@code MemorySegment.NULL} (C's NULL), but NULL never
 *       names the target of a put or get: that is refused at the call, as C BSPlib's
 *       {@code BSPLIB_ERR_NULL_POINTER}.</li>
 *   <li>{@link #put} copies the source at the call (it may be overwritten at once);
 *       {@link #hpput} reads it during the sync (it must stay unchanged until then).</li>
 *   <li>{@link #get} and {@link #hpget} read the source as it was before the superstep's puts:
 *       gets are served before puts are applied; the destination is written by the sync.</li>
 *   <li>{@link #send} messages are received in the superstep after the one they were sent in:
 *       {@link #qsize()}, {@link #getTag}, {@link #move}, {@link #hpmove()}. The tag size
 *       ({@link #setTagsize}, collective) changes at the next sync.</li>
 *   <li><b>Offsets instead of slices.</b> Every call that reads or writes the program's own
 *       memory has a form with an offset into it ({@code &a[k]} in C):
 *       {@link #put(int, MemorySegment, long, MemorySegment, long, long)}, {@link #hpput(int,
 *       MemorySegment, long, MemorySegment, long, long) hpput}, {@link #get(int, MemorySegment,
 *       long, MemorySegment, long, long) get}, {@link #hpget(int, MemorySegment, long,
 *       MemorySegment, long, long) hpget}, {@link #send(int, MemorySegment, long, MemorySegment,
 *       long, long) send}, {@link #hpsend(int, MemorySegment, long, MemorySegment, long, long)
 *       hpsend}, {@link #getTag(MemorySegment, long) getTag}, {@link #move(MemorySegment, long,
 *       long) move} and {@link #hpmove(BspMessageView) hpmove}, so that a loop needs no
 *       {@code asSlice} (an allocation) per call. These calls allocate nothing once the layer's
 *       buffers and request arrays have grown.</li>
 *   <li>{@link #abort(String)} ends the whole section: every other process gets a
 *       {@link org.lpf4j.FatalException} from its next sync, never a hang.</li>
 * </ul>
 * Errors are exceptions that name the call, the pid and the values; a call that throws has no
 * effect. Collective mismatches (push/pop counts, popping other registrations, tag sizes) are found
 * at the sync and thrown there on every process alike; the superstep's registrations, pops and tag
 * size are then void everywhere, and its puts, gets and messages are dropped (hpputs may have landed).
 * Errors found by a sync name its superstep counted from {@link #begin}: the first sync ends
 * superstep 1 (the layer's own core supersteps are not counted).
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
    // The work is done by: Registry (push/pop), Outgoing (the request queues), Streams (the
    // records' codec), Sync (the protocol and the capacities) and Incoming (the receive queue).
    // This class checks the arguments and delegates.
    private final Context ctx;
    private final int pid;
    private final int nprocs;
    private final long start = System.nanoTime();
    private final Registry registry;
    private final Streams streams;
    private final Outgoing out;
    private final Incoming in = new Incoming();
    private final Sync syncer;
    private boolean ended;

    /** @return the registrations (for tests) */
    Registry registry() { return registry; }

    private Bsplib(Context ctx) {
        this.ctx = ctx;
        this.pid = ctx.pid();
        this.nprocs = ctx.nprocs();
        registry = new Registry(ctx);
        streams = new Streams(ctx);
        out = new Outgoing(ctx, streams);
        syncer = new Sync(ctx, registry, streams, out, in);
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
     * @param p       the number of processes asked for (see {@link Context#exec}); {@link
     *                Lpf#MAX_P} for the whole machine, {@link #machineSize()} processes
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
     * The processes available before {@link #begin} (what C BSPlib's {@code bsp_nprocs()} returns
     * when called before {@code bsp_begin}): the machine size of the selected engine, which is
     * what {@link #run run(Lpf.MAX_P, …)} and {@code Lpf.root().exec(Lpf.MAX_P, …)} get. Measures
     * nothing: O(1) after the engine's selection (the first use selects it).
     *
     * @return the number of processes a program started now from the root would get, ≥ 1
     * @throws IllegalArgumentException if the engine setting names no usable engine (as {@link Lpf#root()})
     */
    public static int machineSize() {
        return Lpf.engine().machineSize();
    }

    /**
     * Ends BSPlib on this process ({@code bsp_end}): deregisters every area and buffer. Collective.
     * Requests and messages not yet synchronised are dropped. No communication; idempotent.
     */
    public void end() {
        if (ended) return;
        ended = true;
        registry.end();
        streams.end();
        syncer.end();
        out.end();
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
     * {@code area}'s size on top. {@code MemorySegment.NULL} may be pushed (and popped) by a
     * process with nothing to register, but never names the target of a put or get. O(1).
     *
     * @param area memory every engine thread may access (heap, shared, global or automatic arena)
     */
    public void pushReg(MemorySegment area) {
        live();
        Objects.requireNonNull(area, "Bsplib.pushReg: area");
        if (area.isReadOnly()) throw new IllegalArgumentException(call("pushReg", "area=" + area) + ": the area is read-only");
        registry.push(area);
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
        String why = registry.pop(area);
        if (why != null) throw new IllegalArgumentException(call("popReg", "area=" + area) + ": " + why);
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
     *                                   superstep) or is {@code MemorySegment.NULL}, or a size is negative
     */
    public void put(int pid, MemorySegment src, MemorySegment dst, long offset, long nbytes) {
        put(pid, src, 0, dst, offset, nbytes);
    }

    /**
     * {@link #put(int, MemorySegment, MemorySegment, long, long)} of the {@code nbytes} at
     * {@code srcOffset} in {@code src} ({@code bsp_put(pid, &a[k], dst, offset, nbytes)}), without
     * a slice. Same cost; no allocation.
     *
     * @param pid       destination process
     * @param src       where the bytes are
     * @param srcOffset byte offset of the first byte to send in {@code src}
     * @param dst       a registered area (by identity), the same on every process
     * @param offset    byte offset in the destination area
     * @param nbytes    bytes to put (0: nothing happens)
     */
    public void put(int pid, MemorySegment src, long srcOffset, MemorySegment dst, long offset, long nbytes) {
        if (nbytes == 0 && !ended) return; // legal whatever the other arguments, as in BSPlib
        AreaTable.Reg r = checkPut("put", pid, src, srcOffset, dst, offset, nbytes);
        out.put(pid, r, offset, src, srcOffset, nbytes);
    }

    /**
     * Unbuffered put ({@code bsp_hpput}): as {@link #put}, but {@code src} is read during the next
     * sync and must not change until it returns. As in BSPlib it is not ordered with the gets of
     * the superstep (a get of the bytes it writes may see either value) nor with the other puts
     * to the same bytes (buffered puts usually land after it); use {@link #put} where that
     * matters. From a registered area (a source starting where it starts) it is put without any
     * copy by the layer; from another segment it is copied once, at the sync. O(1) at the call.
     *
     * @param pid    destination process
     * @param src    the bytes to send (its first {@code nbytes}); kept until the sync
     * @param dst    a registered area
     * @param offset byte offset in the destination area
     * @param nbytes bytes to put
     */
    public void hpput(int pid, MemorySegment src, MemorySegment dst, long offset, long nbytes) {
        hpput(pid, src, 0, dst, offset, nbytes);
    }

    /**
     * {@link #hpput(int, MemorySegment, MemorySegment, long, long)} of the {@code nbytes} at
     * {@code srcOffset} in {@code src}, without a slice: from a registered {@code src} (by
     * identity) the core put reads it at that offset, without a copy. O(1) at the call; no allocation.
     *
     * @param pid       destination process
     * @param src       where the bytes are; kept until the sync
     * @param srcOffset byte offset of the first byte to send in {@code src}
     * @param dst       a registered area
     * @param offset    byte offset in the destination area
     * @param nbytes    bytes to put
     */
    public void hpput(int pid, MemorySegment src, long srcOffset, MemorySegment dst, long offset, long nbytes) {
        if (nbytes == 0 && !ended) return;
        AreaTable.Reg r = checkPut("hpput", pid, src, srcOffset, dst, offset, nbytes);
        out.hpput(pid, r, offset, registry.usable(src), src, srcOffset, nbytes);
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
     * @throws IllegalArgumentException  if {@code src} is not registered or is
     *                                   {@code MemorySegment.NULL}, or a size is negative
     */
    public void get(int pid, MemorySegment src, long offset, MemorySegment dst, long nbytes) {
        addGet("get", pid, src, offset, dst, 0, nbytes);
    }

    /**
     * {@link #get(int, MemorySegment, long, MemorySegment, long)} into {@code dst} at
     * {@code dstOffset} ({@code bsp_get(pid, src, offset, &a[k], nbytes)}), without a slice. Same
     * cost; no allocation.
     *
     * @param pid       source process
     * @param src       a registered area (by identity)
     * @param offset    byte offset in the source area
     * @param dst       where the bytes go; must not be touched until the sync
     * @param dstOffset byte offset in {@code dst} of the first byte written
     * @param nbytes    bytes to get (0: nothing happens)
     */
    public void get(int pid, MemorySegment src, long offset, MemorySegment dst, long dstOffset, long nbytes) {
        addGet("get", pid, src, offset, dst, dstOffset, nbytes);
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
        addGet("hpget", pid, src, offset, dst, 0, nbytes);
    }

    /**
     * {@link #hpget(int, MemorySegment, long, MemorySegment, long)} into {@code dst} at
     * {@code dstOffset}, without a slice; no allocation.
     *
     * @param pid       source process
     * @param src       a registered area
     * @param offset    byte offset in the source area
     * @param dst       where the bytes go
     * @param dstOffset byte offset in {@code dst} of the first byte written
     * @param nbytes    bytes to get
     */
    public void hpget(int pid, MemorySegment src, long offset, MemorySegment dst, long dstOffset, long nbytes) {
        addGet("hpget", pid, src, offset, dst, dstOffset, nbytes);
    }

    private AreaTable.Reg checkPut(String name, int dstPid, MemorySegment src, long srcOffset, MemorySegment dst, long offset,
                                   long nbytes) {
        live();
        checkPid(name, dstPid, offset, nbytes, "srcOffset", srcOffset);
        if (dst == null) throw new NullPointerException(call(name, "pid=" + dstPid) + ": dst is null"); // not requireNonNull with a lambda: that allocates per call
        if (src == null) throw new NullPointerException(call(name, "pid=" + dstPid) + ": src is null");
        if (srcOffset > src.byteSize() - nbytes) {
            throw new IndexOutOfBoundsException(call(name, args(dstPid, offset, nbytes, "srcOffset", srcOffset))
                    + ": the source has only " + src.byteSize() + " bytes");
        }
        return registered(name, dstPid, dst, offset, nbytes, "destination", "srcOffset", srcOffset);
    }

    private void addGet(String name, int srcPid, MemorySegment src, long offset, MemorySegment dst, long dstOffset, long nbytes) {
        if (nbytes == 0 && !ended) return; // legal whatever the other arguments, as in BSPlib
        live();
        checkPid(name, srcPid, offset, nbytes, "dstOffset", dstOffset);
        if (src == null) throw new NullPointerException(call(name, "pid=" + srcPid) + ": src is null");
        AreaTable.Reg r = registered(name, srcPid, src, offset, nbytes, "source", "dstOffset", dstOffset);
        if (dst == null) throw new NullPointerException(call(name, "pid=" + srcPid) + ": dst is null");
        if (dstOffset > dst.byteSize() - nbytes || dst.isReadOnly()) {
            throw new IndexOutOfBoundsException(call(name, args(srcPid, offset, nbytes, "dstOffset", dstOffset))
                    + ": the destination " + dst + " is " + (dst.isReadOnly() ? "read-only" : "smaller than nbytes"
                    + (dstOffset == 0 ? "" : " past dstOffset")));
        }
        out.get(srcPid, r, offset, dst, dstOffset, nbytes);
    }

    private void checkPid(String name, int other, long offset, long nbytes, String local, long localOffset) {
        if (other < 0 || other >= nprocs) {
            throw new IndexOutOfBoundsException(call(name, args(other, offset, nbytes, local, localOffset))
                    + ": pid out of range [0, " + nprocs + ")");
        }
        if (offset < 0 || nbytes < 0 || localOffset < 0) {
            throw new IllegalArgumentException(call(name, args(other, offset, nbytes, local, localOffset))
                    + ": offsets and nbytes must not be negative");
        }
    }

    /** @return the registration {@code area} names for a put or get with {@code other}, checked against its size there */
    private AreaTable.Reg registered(String name, int other, MemorySegment area, long offset, long nbytes, String role,
                                     String local, long localOffset) {
        if (Registry.isNull(area)) {
            throw new IllegalArgumentException(call(name, args(other, offset, nbytes, local, localOffset)) + ": the " + role
                    + " area is MemorySegment.NULL: NULL may be registered but names no area to " + (role.equals("source") ? "get from" : "put into")
                    + " (C BSPlib: BSPLIB_ERR_NULL_POINTER)");
        }
        AreaTable.Reg r = registry.usable(area);
        if (r == null) {
            String why = registry.known(area) ? "is registered only since this superstep (usable after the next sync)"
                    : "is not registered (pushReg it, then sync)";
            throw new IllegalArgumentException(call(name, args(other, offset, nbytes, local, localOffset))
                    + ": the " + role + " area " + area + " " + why);
        }
        long size = r.sizes[other]; // the size pid `other` registered: areas may differ per process
        if (offset > size - nbytes) {
            throw new IndexOutOfBoundsException(call(name, args(other, offset, nbytes, local, localOffset))
                    + ": offset + nbytes = " + (offset + nbytes) + " is past the " + role + " area of " + size
                    + " bytes that pid " + other + " registered");
        }
        return r;
    }

    private static String args(int other, long offset, long nbytes, String local, long localOffset) {
        return "pid=" + other + ", offset=" + offset + ", nbytes=" + nbytes + (localOffset == 0 ? "" : ", " + local + "=" + localOffset);
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
        long old = out.tagSize;
        out.nextTagSize = size;
        return old;
    }

    /** @return the tag size of messages sent in this superstep (as last set before a sync) */
    public long tagSize() { return out.tagSize; }

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
        send(pid, tag, 0, payload, 0, nbytes);
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
     * {@link #send(int, MemorySegment, MemorySegment, long)} of the tag at {@code tagOffset} in
     * {@code tag} and the {@code nbytes} at {@code payloadOffset} in {@code payload}, without
     * slices. Same cost; no allocation.
     *
     * @param pid           destination (may be this process)
     * @param tag           where the tag is; may be null when the tag size is 0
     * @param tagOffset     byte offset of the tag in {@code tag}
     * @param payload       where the payload is; may be null when {@code nbytes} is 0
     * @param payloadOffset byte offset of the payload in {@code payload}
     * @param nbytes        payload bytes, ≥ 0
     */
    public void send(int pid, MemorySegment tag, long tagOffset, MemorySegment payload, long payloadOffset, long nbytes) {
        checkSend("send", pid, tag, tagOffset, payload, payloadOffset, nbytes);
        out.send(pid, tag, tagOffset, payload, payloadOffset, nbytes, false);
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
        hpsend(pid, tag, 0, payload, 0, nbytes);
    }

    /**
     * {@link #hpsend(int, MemorySegment, MemorySegment, long)} of the tag at {@code tagOffset} and
     * the payload at {@code payloadOffset}, without slices; no allocation.
     *
     * @param pid           destination
     * @param tag           where the tag is, kept until the sync
     * @param tagOffset     byte offset of the tag in {@code tag}
     * @param payload       where the payload is, kept until the sync
     * @param payloadOffset byte offset of the payload in {@code payload}
     * @param nbytes        payload bytes
     */
    public void hpsend(int pid, MemorySegment tag, long tagOffset, MemorySegment payload, long payloadOffset, long nbytes) {
        checkSend("hpsend", pid, tag, tagOffset, payload, payloadOffset, nbytes);
        out.send(pid, tag, tagOffset, payload, payloadOffset, nbytes, true);
    }

    private void checkSend(String name, int dst, MemorySegment tag, long tagOffset, MemorySegment payload, long payloadOffset,
                           long nbytes) {
        live();
        checkPid(name, dst, 0, nbytes, "payloadOffset", payloadOffset);
        long tagSize = out.tagSize;
        if (tagOffset < 0) throw new IllegalArgumentException(call(name, "pid=" + dst + ", tagOffset=" + tagOffset) + ": negative");
        if (tagSize > 0 && (tag == null || tagOffset > tag.byteSize() - tagSize)) {
            throw new IndexOutOfBoundsException(call(name, "pid=" + dst + ", nbytes=" + nbytes) + ": the tag must have "
                    + tagSize + " bytes (the tag size), it has " + (tag == null ? "none" : tag.byteSize() + "")
                    + (tagOffset == 0 ? "" : " from tagOffset=" + tagOffset));
        }
        if (nbytes > 0 && (payload == null || payloadOffset > payload.byteSize() - nbytes)) {
            throw new IndexOutOfBoundsException(call(name, "pid=" + dst + ", nbytes=" + nbytes) + ": the payload has only "
                    + (payload == null ? 0 : payload.byteSize()) + " bytes"
                    + (payloadOffset == 0 ? "" : " from payloadOffset=" + payloadOffset));
        }
    }

    /**
     * The messages in the queue ({@code bsp_qsize}). O(1).
     *
     * @return the number of messages not yet moved
     */
    public long qsize() { return in.size(); }

    /** @return the payload bytes of the messages not yet moved ({@code bsp_qsize}'s second result); O(1) */
    public long qsizeBytes() { return in.payloadBytes(); }

    /**
     * The next message's tag and payload length ({@code bsp_get_tag}). O(tag size).
     *
     * @param tag where the tag is copied (the first {@code tagSize} bytes of the superstep the
     *            message was sent in); may be null, then it is not copied
     * @return the next message's payload length, or -1 when the queue is empty
     */
    public long getTag(MemorySegment tag) { return getTag(tag, 0); }

    /**
     * {@link #getTag(MemorySegment)} into {@code tag} at {@code tagOffset}, without a slice; no allocation.
     *
     * @param tag       where the tag is copied; may be null, then it is not copied
     * @param tagOffset byte offset in {@code tag}
     * @return the next message's payload length, or -1 when the queue is empty
     */
    public long getTag(MemorySegment tag, long tagOffset) {
        live();
        if (in.isEmpty()) return -1;
        long tagSize = in.tagSize();
        if (tag != null && tagSize > 0) {
            if (tagOffset < 0 || tagOffset > tag.byteSize() - tagSize) {
                throw new IndexOutOfBoundsException(call("getTag", "tag=" + tag + (tagOffset == 0 ? "" : ", tagOffset=" + tagOffset))
                        + ": the tag size is " + tagSize);
            }
            in.copyTag(tag, tagOffset);
        }
        return in.nextLength();
    }

    /** @return the tag size of the messages in the queue (that of the superstep they were sent in) */
    public long queueTagSize() { return in.tagSize(); }

    /**
     * Copies the next message's payload, at most {@code receptionBytes} of it, into
     * {@code payload} and removes the message ({@code bsp_move}). O(bytes copied).
     *
     * @param payload        where the payload goes
     * @param receptionBytes at most this many bytes are copied
     * @return the bytes copied
     * @throws IllegalStateException if the queue is empty
     */
    public long move(MemorySegment payload, long receptionBytes) { return move(payload, 0, receptionBytes); }

    /**
     * {@link #move(MemorySegment, long)} into {@code payload} at {@code offset}
     * ({@code bsp_move(&a[k], receptionBytes)}), without a slice; no allocation.
     *
     * @param payload        where the payload goes
     * @param offset         byte offset in {@code payload} of the first byte written
     * @param receptionBytes at most this many bytes are copied
     * @return the bytes copied
     * @throws IllegalStateException if the queue is empty
     */
    public long move(MemorySegment payload, long offset, long receptionBytes) {
        live();
        if (in.isEmpty()) throw new IllegalStateException(call("move", "receptionBytes=" + receptionBytes) + ": the queue is empty");
        if (receptionBytes < 0 || offset < 0) {
            throw new IllegalArgumentException(call("move", "offset=" + offset + ", receptionBytes=" + receptionBytes) + ": negative");
        }
        long n = Math.min(in.nextLength(), receptionBytes);
        if (n > 0 && (payload == null || offset > payload.byteSize() - n)) {
            throw new IndexOutOfBoundsException(call("move", "receptionBytes=" + receptionBytes + (offset == 0 ? "" : ", offset=" + offset))
                    + ": the payload segment has " + (payload == null ? 0 : payload.byteSize()) + " bytes, " + n + " to copy");
        }
        in.move(payload, offset, n);
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
     * ({@code bsp_hpmove}); valid until the next sync. O(1); allocates the record and two slices
     * ({@link #hpmove(BspMessageView)} does not).
     *
     * @return the message, or null when the queue is empty
     */
    public BspMessage hpmove() {
        live();
        return in.isEmpty() ? null : in.hpmove();
    }

    /**
     * Removes the next message and points {@code view} at its tag and payload without copying
     * ({@code bsp_hpmove}'s two pointers); valid until the next sync. O(1), no allocation.
     *
     * @param view where the message lies afterwards (reused from call to call)
     * @return the message's payload length, or -1 when the queue is empty ({@code view} unchanged)
     */
    public long hpmove(BspMessageView view) {
        live();
        if (view == null) throw new NullPointerException(call("hpmove", "view=null") + ": view is null");
        return in.isEmpty() ? -1 : in.hpmove(view);
    }

    // =====================================================================================
    // abort and sync
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

    /**
     * Ends the superstep ({@code bsp_sync}): collective. Applies the registrations and tag size of
     * this superstep, executes every get (before the puts), every put and delivers the messages;
     * the previous superstep's messages not moved are dropped. Cost: see the class comment (one
     * core superstep when everything fits, else the full protocol).
     *
     * @throws IllegalStateException     on every process, if the processes disagree on the number
     *                                   of pushReg/popReg calls or the tag size (the message names
     *                                   the superstep, counted from begin)
     * @throws IndexOutOfBoundsException at a receiver whose registered area is smaller than a put
     *                                   to it (the section then fails)
     * @throws org.lpf4j.FatalException if the section failed (another process threw or aborted)
     */
    public void sync() {
        live();
        syncer.sync();
    }

    private void live() {
        if (ended) throw new IllegalStateException("Bsplib at pid " + pid + ": used after end()");
    }

    private String call(String name, String args) {
        return "Bsplib." + name + "(" + args + ") at pid " + pid + " of " + nprocs;
    }
}
