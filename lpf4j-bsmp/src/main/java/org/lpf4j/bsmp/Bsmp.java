package org.lpf4j.bsmp;

import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Memslot;
import org.lpf4j.SyncAttr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * A bulk synchronous message passing object (the LPF BSMP library's {@code lpf_bsmp_t}) over one
 * process's {@link Context}: a queue of tagged messages that processes {@link #send send} each
 * other in a WRITE superstep and {@link #move() move} out of it in the following READ superstep.
 *
 * <pre>{@code
 * ctx.resizeMemoryRegister(Bsmp.REGISTER_ENTRIES);
 * ctx.resizeMessageQueue(Bsmp.queueEntries(ctx.nprocs(), maxMessages));
 * ctx.sync();
 * try (Bsmp bsmp = Bsmp.create(ctx, bufferSize, Integer.BYTES, maxMessages)) {   // WRITE mode
 *     bsmp.sendIntTag((ctx.pid() + 1) % ctx.nprocs(), 42, payload);
 *     bsmp.sync();                                                             // now READ mode
 *     for (BsmpMessage m : bsmp.messages()) use(m.source(), m.tagInt(), m.payload());
 *     bsmp.sync();                                                             // WRITE again
 * }
 * }</pre>
 *
 * <h2>Modes</h2>
 * A new object is in {@link Mode#WRITE WRITE} mode. {@link #sync()} switches WRITE → READ (every
 * message sent in the WRITE superstep becomes readable at its destination) and READ → WRITE
 * (messages not moved are dropped). A plain {@link Context#sync()} does not change the mode.
 * Modes change only collectively, so every process's object is always in the same mode.
 * Sending in READ mode or moving in WRITE mode throws {@link BsmpInvalidException}
 * ({@code LPF_ERR_BSMP_INVAL}) and has no effect; the object stays usable.
 *
 * <h2>Budget</h2>
 * In any one superstep a process may send, and may be sent, at most {@code maxMessages} messages
 * carrying at most {@code bufferSize} payload bytes in total. A send that would exceed its
 * sender's budget throws {@link BsmpFullException} and has no effect. A process that is sent
 * more than its budget gets {@link BsmpFullException} from the sync (see {@link #sync()}).
 *
 * <h2>Protocol and why sync() synchronises twice from WRITE</h2>
 * A send stages its record (header, tag, payload) in this process's own receive buffer: by one
 * or two local puts from the caller's slots ({@link #send(int, Memslot, long, Memslot, long, long)})
 * or by a copy (the conveniences). The sync from WRITE then runs two supersteps:
 * <ol>
 *   <li>each process puts, to every process it sent messages to, a 32-byte summary (where its
 *       block of records for that process starts in its outbox, how many bytes, messages and
 *       payload bytes); then {@code ctx.sync()};</li>
 *   <li>each process copies its staged records into its outbox, grouped per destination; each
 *       receiver places its senders' blocks one after another in its receive buffer (a prefix
 *       sum over the senders' byte counts) and fetches each block with one get; then
 *       {@code ctx.sync()}.</li>
 * </ol>
 * Because every receiver computes the offsets itself, any number of senders can send any number
 * of messages to one process in one superstep without their records overlapping. (The C
 * reference's single-superstep scheme writes several senders' records at colliding offsets.)
 * The price is one extra superstep: {@link #sync()} calls {@code ctx.sync()} <b>twice</b> when
 * switching WRITE → READ and <b>once</b> when switching READ → WRITE, on every process alike (the
 * specification's {@code lpf_bsmp_sync} calls it once).
 *
 * <h2>Sizing the context</h2>
 * {@link #create} needs {@link #REGISTER_ENTRIES} free entries in the memory register (three
 * global, one local registration), and the message queue must hold, in every superstep, the
 * requests of all BSMP objects plus the program's own; one object queues at most
 * {@link #queueEntries(int, long) queueEntries(p, maxMessages)} = {@code 2·maxMessages + p}
 * requests per superstep. {@link #needs} gives both as a {@link Capacity}, to be added to the
 * program's own and reserved in one call before {@code create}. As in the LPF core, running out of either is an
 * {@link IllegalStateException} from the core.
 *
 * <h2>Threads</h2>
 * An object belongs to the process (thread) that created it. {@link #create}, {@link #sync()},
 * {@link #syncAll} and {@link #close()} are collective: every process calls them in the same
 * order.
 */
public final class Bsmp implements AutoCloseable {

    /** The mode of a BSMP object in the current superstep (the C API's {@code lpf_bsmp_mode}). */
    public enum Mode {
        /** Messages of the previous superstep may be moved out; nothing may be sent. */
        READ,
        /** Messages may be sent; nothing may be moved. */
        WRITE
    }

    /** Memory-register entries one object takes: three global and one local registration. */
    public static final int REGISTER_ENTRIES = 4;

    private final Context ctx;
    private final int pid;
    private final int nprocs;
    private final RecordLayout layout;
    private final Buffers buffers;
    private final SendQueue out;
    private final ReceiveQueue in;
    private final BsmpMessage message;
    private final Bsmp[] self = {this};
    private Mode mode = Mode.WRITE;
    /** Why sends are refused until the next sync, or {@code null}. */
    private String invalid;
    /** Why the object can no longer be used at all (closed, a sync failed), or {@code null}. */
    private String dead;
    /** Set by the exchange when this process was sent more than its budget. */
    private String overflow;
    private boolean closed;
    /** Whether a send of this superstep queued a put into the inbox (cleared by the sync). */
    private boolean putsPending;

    private Bsmp(Context ctx, RecordLayout layout, Buffers buffers) {
        this.ctx = ctx;
        this.pid = ctx.pid();
        this.nprocs = ctx.nprocs();
        this.layout = layout;
        this.buffers = buffers;
        this.out = new SendQueue(layout, nprocs);
        this.in = new ReceiveQueue(layout, nprocs);
        this.message = new BsmpMessage(buffers.inbox.asReadOnly(), layout.tagSize);
    }

    /**
     * Creates a BSMP object in {@link Mode#WRITE} mode ({@code lpf_bsmp_create}). Collective.
     * Allocates two buffers of {@code bufferSize + maxMessages·(15 + tagSize rounded up to 8)}
     * bytes and two of {@code 32·p} bytes, off the Java heap, plus {@code 12·maxMessages + 44·p}
     * bytes of bookkeeping on it. Memory does not grow with the number of senders: no
     * per-sender regions.
     *
     * <p><b>LPF usage.</b> A call to this function
     * <ol>
     *   <li>registers four memory slots (three global, one local: {@link #REGISTER_ENTRIES});</li>
     *   <li>queues zero messages;</li>
     *   <li>expects to receive zero messages;</li>
     *   <li>calls {@code ctx.sync()} once (for the global registrations).</li>
     * </ol>
     *
     * @param ctx         this process's context
     * @param bufferSize  payload bytes a process may send, and may receive, in one superstep
     * @param tagSize     bytes of every message's tag (may be 0)
     * @param maxMessages messages a process may send, and may receive, in one superstep
     * @return the object, in WRITE mode
     * @throws IllegalArgumentException if a size is negative
     * @throws LpfOutOfMemoryException  if the buffers cannot be allocated; then nothing was
     *                                  registered and no sync was made (as if the call had not
     *                                  been made)
     * @throws IllegalStateException    if the memory register has no room for four entries (from
     *                                  the core); nothing is left registered
     */
    public static Bsmp create(Context ctx, long bufferSize, long tagSize, long maxMessages) {
        Objects.requireNonNull(ctx, "Bsmp.create: ctx");
        String call = "Bsmp.create(bufferSize=" + bufferSize + ", tagSize=" + tagSize + ", maxMessages="
                + maxMessages + ") at pid " + ctx.pid() + " of " + ctx.nprocs();
        if (bufferSize < 0 || tagSize < 0 || maxMessages < 0) {
            throw new IllegalArgumentException(call + ": sizes must not be negative");
        }
        RecordLayout layout = new RecordLayout(call, bufferSize, tagSize, maxMessages);
        Bsmp bsmp;
        Buffers buffers = Buffers.allocateAndRegister(ctx, call, layout);
        try {
            bsmp = new Bsmp(ctx, layout, buffers);
        } catch (OutOfMemoryError e) {
            buffers.release(ctx);
            throw new LpfOutOfMemoryException(call + ": cannot allocate the bookkeeping of "
                    + maxMessages + " messages", e);
        }
        ctx.sync();
        return bsmp;
    }

    /**
     * The message-queue entries one BSMP object may use in one superstep: {@code 2·maxMessages}
     * local puts for its sends plus {@code p} puts or gets of its sync. Reserve this (summed
     * over all objects, plus the program's own requests) with
     * {@link Context#resizeMessageQueue(long)}.
     *
     * @param nprocs      processes of the context
     * @param maxMessages the object's {@code maxMessages}
     * @return {@code 2·maxMessages + nprocs}
     */
    public static long queueEntries(int nprocs, long maxMessages) {
        return Math.addExact(Math.multiplyExact(2, maxMessages), nprocs);
    }

    /**
     * What one object made by {@link #create create(ctx, bufferSize, tagSize, maxMessages)} on
     * {@code nprocs} processes needs reserved, for adding to the program's own needs before
     * anything is initialised ({@link Capacity#plus}, {@link Capacity#reserve}):
     * {@link #REGISTER_ENTRIES} register slots and {@link #queueEntries(int, long)} queue entries.
     * Both are exact, the entries counted as lpf4j's engines count them (the requests a process
     * queues): a superstep in which a process sends {@code maxMessages ≥ nprocs} messages, each
     * with its tag and payload in different slots, to every process uses them all. The
     * sizes only are checked (the buffers do not take register slots or queue entries). O(1).
     *
     * @param nprocs      processes of the context, ≥ 1
     * @param bufferSize  as for {@code create}, ≥ 0
     * @param tagSize     as for {@code create}, ≥ 0
     * @param maxMessages as for {@code create}, ≥ 0
     * @return the capacity one object needs
     * @throws IllegalArgumentException if {@code nprocs < 1} or a size is negative
     */
    public static Capacity needs(int nprocs, long bufferSize, long tagSize, long maxMessages) {
        if (nprocs < 1 || bufferSize < 0 || tagSize < 0 || maxMessages < 0) {
            throw new IllegalArgumentException("Bsmp.needs(nprocs=" + nprocs + ", bufferSize=" + bufferSize + ", tagSize="
                    + tagSize + ", maxMessages=" + maxMessages + "): need nprocs >= 1 and non-negative sizes");
        }
        return Capacity.of(REGISTER_ENTRIES, queueEntries(nprocs, maxMessages));
    }

    /** @return the mode of the current superstep */
    public Mode mode() { return mode; }

    /** @return the payload bytes a process may send, and receive, per superstep */
    public long bufferSize() { return layout.bufferSize; }

    /** @return the bytes of every tag */
    public long tagSize() { return layout.tagSize; }

    /** @return the messages a process may send, and receive, per superstep */
    public long maxMessages() { return layout.maxMessages; }

    /** @return the context this object was created on */
    public Context context() { return ctx; }

    /** @return messages sent in the current WRITE superstep (0 in READ mode) */
    public long sentMessages() { return out.messages(); }

    /** @return payload bytes sent in the current WRITE superstep (0 in READ mode) */
    public long sentBytes() { return out.payloadBytes(); }

    /** @return messages not yet moved in the current READ superstep (0 in WRITE mode) */
    public long remainingMessages() { return in.remaining(); }

    // =====================================================================================
    // send
    // =====================================================================================

    /**
     * Queues a message to {@code pid} whose tag and payload are read from registered memory
     * ({@code lpf_send}). The tag is {@link #tagSize()} bytes of {@code tagSlot} at
     * {@code tagOffset}, the payload {@code payloadSize} bytes of {@code payloadSlot} at
     * {@code payloadOffset}; both are read during the next sync (of this object or of the
     * context) and must not be written before it returns. Allocates nothing.
     *
     * <p><b>LPF usage.</b> A call to this function
     * <ol>
     *   <li>registers zero memory slots;</li>
     *   <li>queues at most two messages (local puts of the tag and of the payload into this
     *       object's buffer; none for an empty tag or payload; one for both when the payload
     *       directly follows the tag in the same slot and the tag size is a multiple of 8);</li>
     *   <li>expects to receive those (at most two) messages at this process;</li>
     *   <li>does not call {@code ctx.sync()}.</li>
     * </ol>
     *
     * @param pid           destination process, {@code 0 ≤ pid < p} (may be this process)
     * @param tagSlot       a local or global slot holding the tag; may be {@code null} when the
     *                      tag size is 0
     * @param tagOffset     where the tag starts in {@code tagSlot}
     * @param payloadSlot   a local or global slot holding the payload; may be {@code null} when
     *                      {@code payloadSize} is 0
     * @param payloadOffset where the payload starts in {@code payloadSlot}
     * @param payloadSize   payload bytes, ≥ 0
     * @throws BsmpInvalidException      in READ mode, or after a send of this superstep failed
     *                                   half-way; no effect
     * @throws BsmpFullException         if the message exceeds this superstep's budget; no effect
     * @throws IndexOutOfBoundsException if {@code pid} is out of range or an area is outside its
     *                                   slot; no effect
     * @throws IllegalArgumentException  for a negative size or offset or a missing slot; no effect
     * @throws IllegalStateException     if closed, or from the core if its message queue is full
     *                                   (the object is then invalid until the next sync)
     */
    public void send(int pid, Memslot tagSlot, long tagOffset, Memslot payloadSlot, long payloadOffset,
                     long payloadSize) {
        checkSend("send", pid, payloadSize);
        long tagSize = layout.tagSize;
        if (badArea(tagSlot, tagOffset, tagSize) || badArea(payloadSlot, payloadOffset, payloadSize)) {
            throw areaError(pid, tagSlot, tagOffset, payloadSlot, payloadOffset, payloadSize);
        }
        long record = out.nextRecord();
        Memslot inbox = buffers.inboxSlot;
        if (tagSize > 0 && tagSize == layout.tagSpace && tagSlot == payloadSlot && payloadOffset == tagOffset + tagSize) {
            // Tag and payload adjacent in one slot, and adjacent in the record too: one put.
            ctx.put(tagSlot, tagOffset, this.pid, inbox, layout.tagOffset(record), tagSize + payloadSize);
            putsPending = true;
            out.commit(buffers.inbox, pid, payloadSize);
            return;
        }
        boolean queued = false;
        try {
            if (tagSize > 0) {
                ctx.put(tagSlot, tagOffset, this.pid, inbox, layout.tagOffset(record), tagSize);
                queued = true;
                putsPending = true;
            }
            if (payloadSize > 0) {
                ctx.put(payloadSlot, payloadOffset, this.pid, inbox, layout.payloadOffset(record), payloadSize);
                putsPending = true;
            }
        } catch (RuntimeException e) {
            if (queued) {
                invalid = "an earlier send of this superstep failed after queuing part of its message (" + e + ")";
            }
            throw e;
        }
        out.commit(buffers.inbox, pid, payloadSize);
    }

    /**
     * Queues a message to {@code pid} whose tag and payload are copied from the given segments at
     * once (so they may be reused as soon as this returns); no registration is needed. Allocates
     * nothing.
     *
     * <p><b>LPF usage.</b> Registers nothing, queues zero messages, expects to receive zero
     * messages, does not call {@code ctx.sync()}.
     *
     * @param pid     destination process
     * @param tag     exactly {@link #tagSize()} bytes ({@link MemorySegment#NULL} for a tag size of 0)
     * @param payload the payload (may be empty)
     * @throws BsmpInvalidException      in READ mode or after a failed send; no effect
     * @throws BsmpFullException         if the message exceeds this superstep's budget; no effect
     * @throws IndexOutOfBoundsException if {@code pid} is out of range; no effect
     * @throws IllegalArgumentException  if the tag has the wrong size; no effect
     * @throws IllegalStateException     if the tag's or the payload's memory is no longer
     *                                   accessible (its arena was closed); no message is sent
     */
    public void send(int pid, MemorySegment tag, MemorySegment payload) {
        long size = payload.byteSize();
        long record = reserve("send", pid, tag.byteSize(), size);
        // Copy everything before accounting: a failing copy (e.g. a closed arena) leaves no message.
        MemorySegment.copy(tag, 0, buffers.inbox, layout.tagOffset(record), layout.tagSize);
        MemorySegment.copy(payload, 0, buffers.inbox, layout.payloadOffset(record), size);
        out.commit(buffers.inbox, pid, size);
    }

    /**
     * {@link #send(int, MemorySegment, MemorySegment)} with an {@code int} tag, for an object of
     * tag size 4; read it back with {@link BsmpMessage#tagInt()}. Allocates nothing.
     *
     * @param pid     destination process
     * @param tag     the tag
     * @param payload the payload, copied at once
     * @throws IllegalArgumentException if the tag size is not 4; and as the general send
     */
    public void sendIntTag(int pid, int tag, MemorySegment payload) {
        buffers.inbox.set(ValueLayout.JAVA_INT, layout.tagOffset(stage("sendIntTag", pid, Integer.BYTES, payload)), tag);
    }

    /**
     * {@link #sendIntTag(int, int, MemorySegment)} with the payload in a byte array.
     *
     * @param pid     destination process
     * @param tag     the tag
     * @param payload the payload, copied at once
     */
    public void sendIntTag(int pid, int tag, byte[] payload) {
        buffers.inbox.set(ValueLayout.JAVA_INT, layout.tagOffset(stage("sendIntTag", pid, Integer.BYTES, payload)), tag);
    }

    /**
     * {@link #send(int, MemorySegment, MemorySegment)} with a {@code long} tag, for an object of
     * tag size 8; read it back with {@link BsmpMessage#tagLong()}. Allocates nothing.
     *
     * @param pid     destination process
     * @param tag     the tag
     * @param payload the payload, copied at once
     * @throws IllegalArgumentException if the tag size is not 8; and as the general send
     */
    public void sendLongTag(int pid, long tag, MemorySegment payload) {
        buffers.inbox.set(ValueLayout.JAVA_LONG, layout.tagOffset(stage("sendLongTag", pid, Long.BYTES, payload)), tag);
    }

    /**
     * {@link #sendLongTag(int, long, MemorySegment)} with the payload in a byte array.
     *
     * @param pid     destination process
     * @param tag     the tag
     * @param payload the payload, copied at once
     */
    public void sendLongTag(int pid, long tag, byte[] payload) {
        buffers.inbox.set(ValueLayout.JAVA_LONG, layout.tagOffset(stage("sendLongTag", pid, Long.BYTES, payload)), tag);
    }

    /**
     * A copying send: checks it, copies the payload into the next record and accounts it.
     *
     * @return the record, whose tag the caller writes before the next sync
     */
    private long stage(String call, int pid, long tagBytes, MemorySegment payload) {
        long size = payload.byteSize();
        long record = reserve(call, pid, tagBytes, size);
        MemorySegment.copy(payload, 0, buffers.inbox, layout.payloadOffset(record), size);
        out.commit(buffers.inbox, pid, size);
        return record;
    }

    /** {@link #stage(String, int, long, MemorySegment)} for a payload in an array. */
    private long stage(String call, int pid, long tagBytes, byte[] payload) {
        long record = reserve(call, pid, tagBytes, payload.length);
        MemorySegment.copy(payload, 0, buffers.inbox, ValueLayout.JAVA_BYTE, layout.payloadOffset(record), payload.length);
        out.commit(buffers.inbox, pid, payload.length);
        return record;
    }

    private long reserve(String call, int pid, long tagBytes, long payloadSize) {
        if (tagBytes != layout.tagSize) {
            throw new IllegalArgumentException(describe(call, pid, payloadSize) + ": the tag has " + tagBytes
                    + " bytes, this Bsmp's tags have " + layout.tagSize);
        }
        checkSend(call, pid, payloadSize);
        return out.nextRecord();
    }

    private void checkSend(String call, int pid, long payloadSize) {
        if (mode != Mode.WRITE || invalid != null || dead != null) throw stateError(call, pid, payloadSize);
        if (pid < 0 || pid >= nprocs) {
            throw new IndexOutOfBoundsException(describe(call, pid, payloadSize) + ": pid not in [0, " + nprocs + ")");
        }
        if (payloadSize < 0) throw new IllegalArgumentException(describe(call, pid, payloadSize) + ": negative size");
        if (!out.fits(payloadSize)) {
            throw new BsmpFullException(describe(call, pid, payloadSize) + ": this superstep already has "
                    + out.messages() + " of maxMessages=" + layout.maxMessages + " messages and "
                    + out.payloadBytes() + " of bufferSize=" + layout.bufferSize + " payload bytes");
        }
    }

    private static boolean badArea(Memslot slot, long offset, long size) {
        if (size == 0) return offset < 0;
        return slot == null || offset < 0 || offset > slot.size() - size;
    }

    private RuntimeException areaError(int pid, Memslot tagSlot, long tagOffset, Memslot payloadSlot,
                                       long payloadOffset, long payloadSize) {
        String call = "send(pid=" + pid + ", tagSlot=" + tagSlot + ", tagOffset=" + tagOffset + ", payloadSlot="
                + payloadSlot + ", payloadOffset=" + payloadOffset + ", payloadSize=" + payloadSize + ") at pid "
                + this.pid + " of " + nprocs + ": ";
        long tagSize = layout.tagSize;
        if (tagOffset < 0 || payloadOffset < 0) return new IllegalArgumentException(call + "negative offset");
        if (badArea(tagSlot, tagOffset, tagSize)) {
            if (tagSlot == null) return new IllegalArgumentException(call + "no tagSlot for a tag of " + tagSize + " bytes");
            return new IndexOutOfBoundsException(call + "the tag [" + tagOffset + ", " + (tagOffset + tagSize)
                    + ") exceeds the slot's " + tagSlot.size() + " bytes");
        }
        if (payloadSlot == null) return new IllegalArgumentException(call + "no payloadSlot for a payload");
        return new IndexOutOfBoundsException(call + "the payload [" + payloadOffset + ", " + (payloadOffset
                + payloadSize) + ") exceeds the slot's " + payloadSlot.size() + " bytes");
    }

    // =====================================================================================
    // move
    // =====================================================================================

    /**
     * Takes the next message out of the queue of this READ superstep ({@code lpf_move}), in an
     * arbitrary order, or returns {@code null} when none is left. The returned object is this
     * Bsmp's one {@link BsmpMessage}, overwritten by the next call: see there for how long its
     * views stay valid. Allocates nothing.
     *
     * <p><b>LPF usage.</b> Registers nothing, queues zero messages, expects to receive zero
     * messages, does not call {@code ctx.sync()}.
     *
     * @return the next message, or {@code null} if the queue is empty
     * @throws BsmpInvalidException  in WRITE mode; no effect
     * @throws IllegalStateException if closed
     */
    public BsmpMessage move() {
        if (mode != Mode.READ || dead != null) throw stateError("move", -1, -1);
        if (!in.hasNext()) return null;
        MemorySegment inbox = buffers.inbox;
        long record = in.next(inbox);
        message.set(in.source(), layout.tagOffset(record), layout.payloadOffset(record),
                inbox.get(ValueLayout.JAVA_LONG, record));
        return message;
    }

    /**
     * The messages of this READ superstep not yet moved, for a for-each loop: each step is a
     * {@link #move()} (so the element is the reused {@link BsmpMessage}). An iterator is meant
     * for the READ superstep in which it was made. Allocates one iterator per loop.
     *
     * @return a view that moves messages out as it is iterated
     * @throws BsmpInvalidException in WRITE mode (when iteration starts)
     */
    public Iterable<BsmpMessage> messages() {
        return () -> {
            if (mode != Mode.READ || dead != null) throw stateError("messages", -1, -1);
            return new Iterator<>() {
                @Override public boolean hasNext() { return mode == Mode.READ && dead == null && in.hasNext(); }

                @Override public BsmpMessage next() {
                    BsmpMessage m = hasNext() ? move() : null;
                    if (m == null) throw new NoSuchElementException("Bsmp.messages() at pid " + pid + ": no message left");
                    return m;
                }
            };
        };
    }

    // =====================================================================================
    // sync
    // =====================================================================================

    /** {@link #sync(SyncAttr)} with {@link SyncAttr#DEFAULT}. */
    public void sync() { sync(SyncAttr.DEFAULT); }

    /**
     * Ends the superstep and switches the mode ({@code lpf_bsmp_sync}). Collective. From WRITE:
     * every message sent this superstep, by any process, is readable at its destination
     * afterwards; mode READ. From READ: messages not moved are dropped; mode WRITE. Either way an
     * earlier {@link BsmpInvalidException} state is cleared, and the program's own pending
     * requests are executed by the first underlying sync. Allocates nothing.
     *
     * <p><b>LPF usage.</b> A call to this function
     * <ol>
     *   <li>registers zero memory slots;</li>
     *   <li>from WRITE, queues at most {@code p} puts of 32 bytes in the first superstep (one per
     *       process this one sent messages to) and at most {@code p} gets in the second (one per
     *       process that sent messages to this one, each fetching all their records); from
     *       READ, queues zero messages;</li>
     *   <li>from WRITE, expects to receive at most {@code p} puts of 32 bytes, plus the records of
     *       the messages addressed to it (bounded by {@code maxMessages} and {@code bufferSize}),
     *       and serves at most {@code p} gets of its own records; from READ, receives nothing;</li>
     *   <li>calls {@code ctx.sync()} exactly twice from WRITE and exactly once from READ.</li>
     * </ol>
     *
     * @param attr the hint passed to each underlying {@code ctx.sync}
     * @throws BsmpFullException     from WRITE, if this process was sent more messages or payload
     *                               bytes than its budget; it is then in READ mode with an empty
     *                               queue (the sync itself completed, on every process)
     * @throws FatalException        if an underlying sync fails; the object is then unusable
     * @throws IllegalStateException if closed, or from the core if the message queue is full
     */
    public void sync(SyncAttr attr) { syncAll(attr, self); }

    /**
     * {@link #syncAll(SyncAttr, Bsmp...)} with {@link SyncAttr#DEFAULT}.
     *
     * @param objects BSMP objects of one context, each at most once
     */
    public static void syncAll(Bsmp... objects) { syncAll(SyncAttr.DEFAULT, objects); }

    /**
     * Switches the mode of several objects at the cost of one {@link #sync()}
     * ({@code lpf_bsmp_syncall}): the same effect as syncing each in turn, but the underlying
     * supersteps are shared. Collective, with the same objects in the same order on every
     * process. Allocates nothing.
     *
     * <p><b>LPF usage.</b> A call to this function
     * <ol>
     *   <li>registers zero memory slots;</li>
     *   <li>queues what the objects' {@link #sync(SyncAttr)} would queue, summed (at most
     *       {@code n·p} puts, then at most {@code n·p} gets, for {@code n} objects in WRITE mode);</li>
     *   <li>expects to receive what their syncs would receive, summed;</li>
     *   <li>calls {@code ctx.sync()} exactly twice if any object is in WRITE mode, otherwise once.</li>
     * </ol>
     *
     * @param attr    the hint passed to each underlying {@code ctx.sync}
     * @param objects BSMP objects of one context, each at most once, none closed
     * @throws IllegalArgumentException if {@code objects} is empty, repeats an object or mixes
     *                                  contexts (nothing happens then)
     * @throws BsmpFullException        for the first object whose budget this process's incoming
     *                                  messages exceeded (others are suppressed); all objects
     *                                  have switched mode
     * @throws FatalException           if an underlying sync fails; the objects are unusable
     */
    public static void syncAll(SyncAttr attr, Bsmp... objects) {
        Objects.requireNonNull(attr, "Bsmp.syncAll: attr");
        Context ctx = checkSameContext(objects);
        boolean exchange = false;
        try {
            for (Bsmp b : objects) {
                if (b.mode == Mode.WRITE) {
                    b.postSummaries();
                    exchange = true;
                }
            }
            ctx.sync(attr);
            if (exchange) {
                for (Bsmp b : objects) if (b.mode == Mode.WRITE) b.fetch();
                ctx.sync(attr);
            }
        } catch (RuntimeException | Error e) {
            for (Bsmp b : objects) b.dead = "a sync of this Bsmp failed: " + e;
            throw e;
        }
        BsmpFullException full = null;
        for (Bsmp b : objects) {
            BsmpFullException f = b.switchMode();
            if (f == null) continue;
            if (full == null) full = f; else full.addSuppressed(f);
        }
        if (full != null) throw full;
    }

    private static Context checkSameContext(Bsmp[] objects) {
        if (objects.length == 0) throw new IllegalArgumentException("Bsmp.syncAll: no objects");
        Context ctx = objects[0].ctx;
        for (int i = 0; i < objects.length; i++) {
            Bsmp b = Objects.requireNonNull(objects[i], "Bsmp.syncAll: objects[i] is null");
            if (b.dead != null) throw b.stateError("sync", -1, -1);
            if (b.ctx != ctx) {
                throw new IllegalArgumentException("Bsmp.syncAll at pid " + b.pid + ": objects[" + i
                        + "] belongs to another context than objects[0]");
            }
            for (int j = 0; j < i; j++) {
                if (objects[j] == b) {
                    throw new IllegalArgumentException("Bsmp.syncAll at pid " + b.pid + ": objects[" + j + "] and objects["
                            + i + "] are the same object");
                }
            }
        }
        return ctx;
    }

    /** First superstep of WRITE → READ: tell every destination what it will fetch from here. */
    private void postSummaries() {
        MemorySegment metaOut = buffers.metaOut;
        out.writeMeta(metaOut);
        for (int d = 0; d < nprocs; d++) {
            if (out.messagesTo(d) == 0) continue;
            ctx.put(buffers.metaOutSlot, d * Meta.ENTRY, d, buffers.metaInSlot, pid * Meta.ENTRY, Meta.ENTRY);
        }
    }

    /** Second superstep: regroup own records for the fetchers, then fetch the records sent here. */
    private void fetch() {
        out.regroup(buffers.inbox, buffers.outbox);
        overflow = in.request(ctx, buffers.metaIn, buffers.outboxSlot, buffers.inboxSlot);
    }

    /** After the underlying syncs: the new mode; an exception for a receive overflow. */
    private BsmpFullException switchMode() {
        invalid = null;
        putsPending = false;
        if (mode == Mode.READ) {
            in.clear();
            mode = Mode.WRITE;
            return null;
        }
        out.clear();
        mode = Mode.READ;
        if (overflow == null) return null;
        String why = overflow;
        overflow = null;
        in.clear();
        return new BsmpFullException("Bsmp.sync: " + why);
    }

    // =====================================================================================
    // close, errors
    // =====================================================================================

    /**
     * Destroys the object ({@code lpf_bsmp_destroy}): deregisters its slots and frees its
     * memory; later calls other than {@code close} throw {@link IllegalStateException}.
     * Collective (it deregisters global slots). Call it in a superstep in which this object sent
     * nothing: right after a {@link #sync()}, in either mode, or before any send. Used so, it never
     * fails; a second call does nothing. After a failed sync it always succeeds.
     *
     * <p>Sent but not yet synced messages are refused: a put-based send has queued puts into this
     * object's buffer that the next sync would execute, after the slot was deregistered (failing
     * the section, or writing into memory the program registered meanwhile under the freed slot).
     * Costs O(1) plus four deregistrations.
     *
     * <p><b>LPF usage.</b> A call to this function
     * <ol>
     *   <li>deregisters four memory slots;</li>
     *   <li>queues zero messages;</li>
     *   <li>expects to receive zero messages;</li>
     *   <li>does not call {@code ctx.sync()}.</li>
     * </ol>
     *
     * @throws IllegalStateException if this process sent messages in the current superstep that
     *                               no sync has delivered yet ({@link #sentMessages()} &gt; 0, or
     *                               a failed send queued part of one); nothing happens then, and
     *                               after the next {@link #sync()} {@code close()} succeeds
     */
    @Override
    public void close() {
        if (closed) return;
        if (dead == null && (out.messages() > 0 || putsPending)) {
            throw new IllegalStateException("Bsmp.close() at pid " + pid + " of " + nprocs + ": " + out.messages()
                    + " message(s) sent in this superstep are not yet synced (their staged puts would land in"
                    + " deregistered memory); call sync() first. Nothing was closed");
        }
        closed = true;
        dead = "this Bsmp is closed";
        in.clear();
        out.clear();
        buffers.release(ctx);
    }

    private RuntimeException stateError(String call, int pid, long payloadSize) {
        String what = pid < 0 ? call + "() at pid " + this.pid + " of " + nprocs : describe(call, pid, payloadSize);
        if (dead != null) return new IllegalStateException(what + ": " + dead);
        if (invalid != null) return new BsmpInvalidException(what + ": " + invalid + "; the next sync() recovers");
        return new BsmpInvalidException(what + ": this Bsmp is in " + mode + " mode, where "
                + (mode == Mode.READ ? "messages are moved, not sent" : "messages are sent, not moved")
                + "; sync() switches to " + (mode == Mode.READ ? Mode.WRITE : Mode.READ));
    }

    private String describe(String call, int pid, long payloadSize) {
        return call + "(pid=" + pid + ", payloadSize=" + payloadSize + ") at pid " + this.pid + " of " + nprocs;
    }

    @Override
    public String toString() {
        return "Bsmp[pid " + pid + " of " + nprocs + ", " + mode + (dead != null ? ", " + dead : "") + ", bufferSize="
                + layout.bufferSize + ", tagSize=" + layout.tagSize + ", maxMessages=" + layout.maxMessages + "]";
    }
}
