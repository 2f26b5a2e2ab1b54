package org.lpf4j.engine.threads;

import org.lpf4j.MsgAttr;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The requests one process queues in one superstep, kept as primitive arrays and laid out for
 * the process that executes them.
 *
 * <p>Puts go to the {@link Outbox}: one {@code long[]} that starts with two words per destination
 * pid (the superstep of its chain and its first record), followed by the records. Stamping the
 * chain with its superstep means a queue is emptied without touching the words the receivers
 * read: a chain from an older superstep simply does not count. A put of at most
 * {@link #BUFFERED_MAX} bytes is copied into its record when it is made (header and payload
 * side by side: the destination reads one or two cache lines); a larger put records where its
 * source is and is read during the sync. A superstep whose requests are all buffered puts needs
 * no second barrier: the sender may change its sources as soon as it leaves the sync, and the
 * outbox is not reused before every reader has arrived at the next sync's barrier, because each
 * process alternates between two queues. Gets are executed by the process that made them and
 * stay in local arrays.
 *
 * <p>Everything is allocated by the constructor ({@code resizeMessageQueue}); adding a request
 * allocates nothing. The fields the sender updates per request live here, apart from the
 * outbox that receivers read, so receivers do not pull the sender's counters across cores.
 */
final class RequestQueue {
    static final int NONE = -1;
    /** Puts up to this size are buffered; larger ones are read from their source during the sync. */
    static final long BUFFERED_MAX = 256;
    /** Buffered payload room never exceeds this; further small puts are then read from their source. */
    private static final long MAX_PAYLOAD_BYTES = 1 << 20;
    /** Record: dstOffset, size, flags | next, slot | kind | request index, then payload or srcOffset. */
    private static final int HEADER_WORDS = 4;
    private static final int UNBUFFERED_WORDS = HEADER_WORDS + 1;
    private static final long HAS_ATTR = 1L << 32;
    private static final long BUFFERED = 1L << 31;
    private static final long INDEX_MASK = BUFFERED - 1;
    private static final int GET_STRIPE = 4;

    /**
     * What other processes read from this queue during a sync. Its references never change, so
     * reading them costs no transfer of the cache lines the sender writes.
     */
    static final class Outbox {
        /** [2·pid, 2·pid + 1]: superstep and first record of pid's chain; then the records. */
        final long[] words;
        /** {@link #words} as a segment, to copy buffered payloads into. */
        final MemorySegment view;
        /** The same, read-only: what receivers (and combining operators) read payloads from. */
        final MemorySegment readOnlyView;
        /** Unbuffered puts' sources, by request index. */
        final MemorySegment[] sources;
        /** Non-default attributes, by request index. */
        final MsgAttr[] attrs;

        private Outbox(int words, int capacity) {
            this.words = new long[words];
            this.view = MemorySegment.ofArray(this.words);
            this.readOnlyView = view.asReadOnly();
            this.sources = new MemorySegment[capacity];
            this.attrs = new MsgAttr[capacity];
        }

        /** @return the first record for {@code dstPid} queued in {@code superstep}, or NONE */
        int head(int dstPid, long superstep) {
            return words[2 * dstPid] == superstep ? (int) words[2 * dstPid + 1] : NONE;
        }

        int next(int r) { return (int) words[r + 2]; }

        long dstOffset(int r) { return words[r]; }

        long size(int r) { return words[r + 1]; }

        int slot(int r) { return (int) (words[r + 3] >>> 32); }

        boolean isBuffered(int r) { return (words[r + 3] & BUFFERED) != 0; }

        /** @return the segment a record's data is copied from */
        MemorySegment source(int r) {
            return isBuffered(r) ? readOnlyView : sources[(int) (words[r + 3] & INDEX_MASK)];
        }

        /** @return the offset in {@link #source} of a record's data */
        long sourceOffset(int r) {
            return isBuffered(r) ? 8L * (r + HEADER_WORDS) : words[r + HEADER_WORDS];
        }

        /** @return the record's non-default attribute, or {@code null} for a plain copy */
        MsgAttr attr(int r) {
            return (words[r + 2] & HAS_ATTR) != 0 ? attrs[(int) (words[r + 3] & INDEX_MASK)] : null;
        }
    }

    final int capacity;
    final Outbox outbox;
    private final int nprocs;
    private final int[] putTail;
    private int used;
    /** The superstep whose requests this queue takes; chains stamped otherwise are stale. */
    private long superstep;
    /** Requests queued (puts and gets), the number the message queue capacity limits. */
    int count;
    /** Requests that read their source during the sync (so the sync needs its second barrier). */
    int unbuffered;
    private final long[] getWords;
    private final MemorySegment[] getDestinations;
    private int gets;

    RequestQueue(int capacity, int nprocs) {
        this.capacity = capacity;
        this.nprocs = nprocs;
        long payload = Math.min((long) capacity * BUFFERED_MAX, MAX_PAYLOAD_BYTES) / 8;
        this.outbox = new Outbox((int) (2L * nprocs + (long) capacity * UNBUFFERED_WORDS + payload), capacity);
        Arrays.fill(outbox.words, 0, 2 * nprocs, -1L); // no superstep is -1
        this.used = 2 * nprocs;
        this.putTail = new int[nprocs];
        Arrays.fill(putTail, NONE);
        this.getWords = new long[GET_STRIPE * capacity];
        this.getDestinations = new MemorySegment[capacity];
    }

    /** @return the largest capacity whose arrays Java can index, for {@code nprocs} processes */
    static int maxCapacity(int nprocs) {
        long room = Integer.MAX_VALUE - 16L - 2L * nprocs - MAX_PAYLOAD_BYTES / 8;
        return (int) Math.min(room / UNBUFFERED_WORDS, (Integer.MAX_VALUE - 16L) / GET_STRIPE);
    }

    /** Bytes a queue of {@code capacity} requests occupies besides its p head words. */
    static long bytesFor(long capacity) {
        return capacity * (8L * UNBUFFERED_WORDS + 4 + 4 + 8L * GET_STRIPE + 4)
                + Math.min(capacity * BUFFERED_MAX, MAX_PAYLOAD_BYTES);
    }

    /** @return a queue of {@code newCapacity} holding this queue's requests at the same positions */
    RequestQueue grownTo(int newCapacity) {
        RequestQueue q = new RequestQueue(newCapacity, nprocs);
        System.arraycopy(outbox.words, 0, q.outbox.words, 0, used);
        System.arraycopy(outbox.sources, 0, q.outbox.sources, 0, count);
        System.arraycopy(outbox.attrs, 0, q.outbox.attrs, 0, count);
        System.arraycopy(putTail, 0, q.putTail, 0, nprocs);
        System.arraycopy(getWords, 0, q.getWords, 0, GET_STRIPE * gets);
        System.arraycopy(getDestinations, 0, q.getDestinations, 0, gets);
        q.used = used;
        q.superstep = superstep;
        q.count = count;
        q.unbuffered = unbuffered;
        q.gets = gets;
        return q;
    }

    void addPut(MemorySegment src, long srcOffset, int dstPid, int dstSlot, long dstOffset, long size, MsgAttr attr) {
        final long[] words = outbox.words;
        int r = used;
        int payloadWords = (int) ((size + 7) >>> 3);
        // Buffer only while the room that every further request may still need stays free.
        boolean buffered = size <= BUFFERED_MAX
                && (long) r + HEADER_WORDS + payloadWords + (long) (capacity - count - 1) * UNBUFFERED_WORDS <= words.length;
        // The copy comes first: if it fails (a closed arena), the queue is unchanged.
        if (buffered) MemorySegment.copy(src, srcOffset, outbox.view, 8L * (r + HEADER_WORDS), size);
        int index = count++;
        words[r] = dstOffset;
        words[r + 1] = size;
        words[r + 2] = (attr != MsgAttr.DEFAULT ? HAS_ATTR : 0) | (NONE & 0xffffffffL);
        words[r + 3] = ((long) dstSlot << 32) | (buffered ? BUFFERED : 0) | index;
        if (attr != MsgAttr.DEFAULT) outbox.attrs[index] = attr;
        if (buffered) {
            used = r + HEADER_WORDS + payloadWords;
        } else {
            words[r + HEADER_WORDS] = srcOffset;
            outbox.sources[index] = src;
            unbuffered++;
            used = r + UNBUFFERED_WORDS;
        }
        int tail = putTail[dstPid];
        if (tail == NONE) {
            words[2 * dstPid] = superstep;
            words[2 * dstPid + 1] = r;
        } else words[tail + 2] = (words[tail + 2] & ~0xffffffffL) | (r & 0xffffffffL);
        putTail[dstPid] = r;
    }

    void addGet(int srcPid, int srcSlot, long srcOffset, MemorySegment dst, long dstOffset, long size) {
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

    int gets() { return gets; }

    long getSrcOffset(int g) { return getWords[GET_STRIPE * g]; }

    long getDstOffset(int g) { return getWords[GET_STRIPE * g + 1]; }

    long getSize(int g) { return getWords[GET_STRIPE * g + 2]; }

    int getSlot(int g) { return (int) (getWords[GET_STRIPE * g + 3] >>> 32); }

    int getPid(int g) { return (int) getWords[GET_STRIPE * g + 3]; }

    MemorySegment getDestination(int g) { return getDestinations[g]; }

    /**
     * Empties the queue for the requests of {@code superstep}; only when no other process can
     * still be reading it.
     */
    void startSuperstep(long superstep) {
        this.superstep = superstep;
        if (count == 0) return;
        Arrays.fill(outbox.sources, 0, count, null);
        Arrays.fill(outbox.attrs, 0, count, null);
        Arrays.fill(getDestinations, 0, gets, null);
        Arrays.fill(putTail, NONE);
        used = 2 * nprocs;
        count = 0;
        unbuffered = 0;
        gets = 0;
    }
}
