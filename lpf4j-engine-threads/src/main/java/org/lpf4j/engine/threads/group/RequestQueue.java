package org.lpf4j.engine.threads.group;

import org.lpf4j.MsgAttr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.lpf4j.engine.threads.group.OutboxLayout.BUFFERED;
import static org.lpf4j.engine.threads.group.OutboxLayout.DST_OFFSET;
import static org.lpf4j.engine.threads.group.OutboxLayout.HAS_ATTR;
import static org.lpf4j.engine.threads.group.OutboxLayout.HEADER;
import static org.lpf4j.engine.threads.group.OutboxLayout.INDEX_MASK;
import static org.lpf4j.engine.threads.group.OutboxLayout.LINE;
import static org.lpf4j.engine.threads.group.OutboxLayout.MAILBOX_RECORD;
import static org.lpf4j.engine.threads.group.OutboxLayout.META;
import static org.lpf4j.engine.threads.group.OutboxLayout.NEXT;
import static org.lpf4j.engine.threads.group.OutboxLayout.PAYLOAD;
import static org.lpf4j.engine.threads.group.OutboxLayout.SIZE;
import static org.lpf4j.engine.threads.group.OutboxLayout.SLOT_SHIFT;
import static org.lpf4j.engine.threads.group.OutboxLayout.STAMP;
import static org.lpf4j.engine.threads.group.OutboxLayout.UNBUFFERED_RECORD;

/**
 * The requests one process queues in one superstep, laid out for the processes that execute
 * them.
 *
 * <p>The byte layout is described once, with a diagram and named offsets, in {@link OutboxLayout}.
 *
 * <p>Puts go to the {@link Outbox}, a 64-byte-aligned native segment that starts with one
 * cache line per destination pid, its <em>mailbox</em>: the superstep the mailbox belongs to,
 * then the first put to that pid as a record whose payload (up to {@link #INLINE_MAX} bytes)
 * sits in the same line. Further puts to the pid are records after the mailboxes, chained from
 * the mailbox's record. So a superstep with one small put per destination costs the receiver
 * one cache line per sender. A put of at most {@link #BUFFERED_MAX} bytes is copied into its
 * record when it is made; a larger put records where its source is and is read during the sync.
 * Stamping mailboxes with their superstep means a queue is emptied without touching what the
 * receivers read: an older stamp simply does not count.
 *
 * <p>A superstep whose requests are all buffered puts needs no second barrier: the sender may
 * change its sources as soon as it leaves the sync, and the outbox is not reused before every
 * reader has arrived at the next sync's barrier, because each process alternates between two
 * queues. Gets are executed by the process that made them and stay in local arrays.
 *
 * <p>Everything is allocated by the constructor ({@code resizeMessageQueue}); adding a request
 * allocates nothing. The sender's counters live here, apart from the outbox that receivers
 * read, so receivers do not pull the sender's bookkeeping across cores.
 */
public final class RequestQueue {
    public static final long NONE = OutboxLayout.NONE;
    /** Puts up to this size are buffered; larger ones are read from their source during the sync. */
    public static final long BUFFERED_MAX = 256;
    /** The first put to a pid rides in its mailbox line when it is at most this large. */
    public static final long INLINE_MAX = 24;
    /** Buffered payload room never exceeds this; further small puts are then read from their source. */
    private static final long MAX_PAYLOAD_BYTES = 1 << 20;
    private static final int GET_STRIPE = 4;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;

    /**
     * What other processes read from this queue during a sync. Its references never change, so
     * reading them costs no transfer of the cache lines the sender writes.
     */
    public static final class Outbox {
        /** Mailboxes (one line per pid), then records. */
        final MemorySegment mem;
        /** The same, read-only: what receivers (and combining operators) read payloads from. */
        final MemorySegment readOnly;
        /** Unbuffered puts' sources, by request index. */
        final MemorySegment[] sources;
        /** Non-default attributes, by request index. */
        final MsgAttr[] attrs;

        private Outbox(long bytes, int capacity) {
            this.mem = Arena.ofAuto().allocate(bytes, LINE);
            this.readOnly = mem.asReadOnly();
            this.sources = new MemorySegment[capacity];
            this.attrs = new MsgAttr[capacity];
        }

        /** @return the record in {@code dstPid}'s mailbox if it was filled in {@code superstep}, else NONE */
        public long firstAfterBarrier(int dstPid, long superstep) {
            long box = LINE * dstPid;
            return mem.get(WORD, box + STAMP) == superstep ? box + MAILBOX_RECORD : NONE;
        }

        /** @return the next record to the same pid, or NONE */
        public long nextAfterBarrier(long r) { return mem.get(WORD, r + NEXT); }

        /** @return the record's destination offset */
        public long dstOffsetAfterBarrier(long r) { return mem.get(WORD, r + DST_OFFSET); }

        /** @return the size in bytes; 0 also for a mailbox that only heads a chain */
        public long sizeAfterBarrier(long r) { return mem.get(WORD, r + SIZE); }

        /** @return the record's destination global slot id */
        public int slotAfterBarrier(long r) { return (int) (mem.get(WORD, r + META) >>> SLOT_SHIFT); }

        /** @return the segment a record's data is copied from */
        public MemorySegment sourceAfterBarrier(long r) {
            long meta = mem.get(WORD, r + META);
            return (meta & BUFFERED) != 0 ? readOnly : sources[(int) (meta & INDEX_MASK)];
        }

        /** @return the offset in {@link #sourceAfterBarrier} of a record's data */
        public long sourceOffsetAfterBarrier(long r) {
            return (mem.get(WORD, r + META) & BUFFERED) != 0 ? r + PAYLOAD : mem.get(WORD, r + PAYLOAD);
        }

        /** @return the record's non-default attribute, or {@code null} for a plain copy */
        public MsgAttr attrAfterBarrier(long r) {
            long meta = mem.get(WORD, r + META);
            return (meta & HAS_ATTR) != 0 ? attrs[(int) (meta & INDEX_MASK)] : null;
        }
    }

    public final int capacity;
    public final Outbox outbox;
    private final int nprocs;
    /** Per destination pid: its last record this superstep, or NONE (then its mailbox is free). */
    private final long[] tail;
    private long used;
    /** The superstep whose requests this queue takes; mailboxes stamped otherwise are stale. */
    private long superstep;
    /** Requests queued (puts and gets), the number the message queue capacity limits. */
    private int count;
    /** Requests that read their source during the sync (so the sync needs its second barrier). */
    private int unbuffered;
    private final long[] getWords;
    private final MemorySegment[] getDestinations;
    private int gets;

    public RequestQueue(int capacity, int nprocs) {
        this.capacity = capacity;
        this.nprocs = nprocs;
        long bytes = LINE * nprocs + capacity * UNBUFFERED_RECORD + Math.min(capacity * BUFFERED_MAX, MAX_PAYLOAD_BYTES);
        this.outbox = new Outbox(bytes, capacity);
        for (int d = 0; d < nprocs; d++) outbox.mem.set(WORD, LINE * d + STAMP, -1L); // no superstep is -1
        this.used = LINE * nprocs;
        this.tail = new long[nprocs];
        Arrays.fill(tail, NONE);
        this.getWords = new long[GET_STRIPE * capacity];
        this.getDestinations = new MemorySegment[capacity];
    }

    /** The largest capacity: request indices fit below HAS_ATTR, and the get stripes fit an int array. */
    /** @return requests queued (puts and gets) this superstep: what the message queue capacity limits */
    public int count() { return count; }

    /** @return requests that read their source during the sync (the sync then needs its second barrier) */
    public int unbuffered() { return unbuffered; }

    public static final int MAX_CAPACITY = (int) Math.min(HAS_ATTR - 1, (Integer.MAX_VALUE - 16L) / GET_STRIPE);

    /** Bytes a queue of {@code capacity} requests occupies besides its p mailbox lines. */
    public static long bytesFor(long capacity) {
        return capacity * (UNBUFFERED_RECORD + 4 + 4 + 8L * GET_STRIPE + 4)
                + Math.min(capacity * BUFFERED_MAX, MAX_PAYLOAD_BYTES);
    }

    /**
     * Heap bytes a queue of {@code capacity} requests occupies (its per-request arrays; the
     * records and payloads are native memory, whose exhaustion shows as an OutOfMemoryError of
     * the allocation itself).
     */
    public static long heapBytesFor(long capacity) {
        return capacity * (8L + 8 + 8L * GET_STRIPE + 8);
    }

    /** @return a queue of {@code newCapacity} holding this queue's requests at the same offsets */
    public RequestQueue grownTo(int newCapacity) {
        RequestQueue q = new RequestQueue(newCapacity, nprocs);
        MemorySegment.copy(outbox.mem, 0, q.outbox.mem, 0, used);
        System.arraycopy(outbox.sources, 0, q.outbox.sources, 0, count);
        System.arraycopy(outbox.attrs, 0, q.outbox.attrs, 0, count);
        System.arraycopy(tail, 0, q.tail, 0, nprocs);
        System.arraycopy(getWords, 0, q.getWords, 0, GET_STRIPE * gets);
        System.arraycopy(getDestinations, 0, q.getDestinations, 0, gets);
        q.used = used;
        q.superstep = superstep;
        q.count = count;
        q.unbuffered = unbuffered;
        q.gets = gets;
        return q;
    }

    public void addPut(MemorySegment src, long srcOffset, int dstPid, int dstSlot, long dstOffset, long size, MsgAttr attr) {
        final MemorySegment mem = outbox.mem;
        final long last = tail[dstPid];
        long payload = (size + 7) & ~7L;
        long r;
        boolean buffered;
        if (last == NONE && size <= INLINE_MAX) {
            r = LINE * dstPid + MAILBOX_RECORD;   // the mailbox record, payload in the same line
            buffered = true;
        } else {
            r = used;
            // Buffer only while the room every further request may still need stays free.
            buffered = size <= BUFFERED_MAX
                    && r + HEADER + payload + (long) (capacity - count - 1) * UNBUFFERED_RECORD <= mem.byteSize();
        }
        // The copy comes first: if it fails (a closed arena), the queue is unchanged.
        if (buffered) MemorySegment.copy(src, srcOffset, mem, r + PAYLOAD, size);
        int index = count++;
        if (last == NONE) {
            long box = LINE * dstPid;
            mem.set(WORD, box + STAMP, superstep);
            if (r != box + MAILBOX_RECORD) { // the mailbox only heads the chain
                mem.set(WORD, box + MAILBOX_RECORD + SIZE, 0L);
                mem.set(WORD, box + MAILBOX_RECORD + NEXT, r);
            }
        } else {
            mem.set(WORD, last + NEXT, r);
        }
        mem.set(WORD, r + DST_OFFSET, dstOffset);
        mem.set(WORD, r + SIZE, size);
        mem.set(WORD, r + NEXT, NONE);
        mem.set(WORD, r + META, ((long) dstSlot << SLOT_SHIFT) | (buffered ? BUFFERED : 0)
                | (attr != MsgAttr.DEFAULT ? HAS_ATTR : 0) | index);
        if (attr != MsgAttr.DEFAULT) outbox.attrs[index] = attr;
        if (buffered) {
            if (r != LINE * dstPid + MAILBOX_RECORD) used = r + HEADER + payload;
        } else {
            mem.set(WORD, r + PAYLOAD, srcOffset);
            outbox.sources[index] = src;
            unbuffered++;
            used = r + UNBUFFERED_RECORD;
        }
        tail[dstPid] = r;
    }

    public void addGet(int srcPid, int srcSlot, long srcOffset, MemorySegment dst, long dstOffset, long size) {
        count++;
        unbuffered++;
        int g = gets++;
        int w = GET_STRIPE * g;
        getWords[w] = srcOffset;
        getWords[w + 1] = dstOffset;
        getWords[w + 2] = size;
        getWords[w + 3] = ((long) srcSlot << 32) | srcPid;
        getDestinations[g] = dst;
    }

    /**
     * Bytes of the requests queued this superstep (puts and gets), by walking the chains: for
     * the JFR superstep event only, so the put path keeps no running total.
     */
    public long queuedBytes() {
        final MemorySegment mem = outbox.mem;
        long sum = 0;
        for (int d = 0; d < nprocs; d++) {
            if (tail[d] == NONE) continue;
            for (long r = LINE * d + MAILBOX_RECORD; r != NONE; r = mem.get(WORD, r + NEXT)) sum += mem.get(WORD, r + SIZE);
        }
        for (int g = 0; g < gets; g++) sum += getWords[GET_STRIPE * g + 2];
        return sum;
    }

    public int gets() { return gets; }

    public long getSrcOffset(int g) { return getWords[GET_STRIPE * g]; }

    public long getDstOffset(int g) { return getWords[GET_STRIPE * g + 1]; }

    public long getSize(int g) { return getWords[GET_STRIPE * g + 2]; }

    public int getSlot(int g) { return (int) (getWords[GET_STRIPE * g + 3] >>> 32); }

    public int getPid(int g) { return (int) getWords[GET_STRIPE * g + 3]; }

    public MemorySegment getDestination(int g) { return getDestinations[g]; }

    /**
     * Empties the queue for the requests of {@code superstep}; only when no other process can
     * still be reading it.
     */
    public void startSuperstep(long superstep) {
        this.superstep = superstep;
        if (count == 0) return;
        Arrays.fill(outbox.sources, 0, count, null);
        Arrays.fill(outbox.attrs, 0, count, null);
        Arrays.fill(getDestinations, 0, gets, null);
        Arrays.fill(tail, NONE);
        used = LINE * nprocs;
        count = 0;
        unbuffered = 0;
        gets = 0;
    }
}
