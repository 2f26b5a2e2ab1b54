package org.lpf4j.engine.threads;

import org.lpf4j.MsgAttr;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The requests one process queued in one superstep, as primitive arrays: one {@code long[]}
 * stripe of four words per request (so that the process executing it reads one cache line,
 * not one per field), the segments beside it, puts chained per destination pid and gets in a
 * chain of their own.
 *
 * <p>Puts of at most {@link #BUFFERED_MAX} bytes are copied into the queue's own buffer when
 * they are made, as a record of three header words (destination offset, slot and size, link)
 * followed by the payload, chained per destination: the executing process reads one or two
 * cache lines per small put. A superstep whose requests are all buffered puts needs no second barrier: the
 * sources may change as soon as the sender leaves its sync, and the buffer is not reused before
 * every reader has arrived at the next sync's barrier (each process alternates between two
 * queues). Everything is preallocated by {@code resizeMessageQueue}; adding a request allocates
 * nothing.
 */
final class RequestQueue {
    static final int NONE = -1;
    /** Puts up to this size are buffered; larger ones are read from the source during the sync. */
    static final long BUFFERED_MAX = 256;
    /** The buffer never grows past this; further small puts are then read from their source. */
    private static final long MAX_BUFFER_BYTES = 1 << 20;
    private static final int STRIPE = 4;
    private static final long HAS_ATTR = 1L << 32;
    private static final int HEADER_WORDS = 3;
    private static final long HEADER_BYTES = 8 * HEADER_WORDS;

    final int capacity;
    /** Per request: source offset, destination offset, size, (slot << 33 | HAS_ATTR | next). */
    private final long[] words;
    /** Puts: the source (the buffer for buffered puts); gets: the local destination. */
    private final MemorySegment[] segments;
    /** Non-default message attributes; read only for requests flagged HAS_ATTR. */
    private final MsgAttr[] attrs;
    /** Gets: the pid to read from. */
    private final int[] getPid;
    final int[] putHead;
    private final int[] putTail;
    int getHead = NONE;
    private int getTail = NONE;
    int count;
    /** Requests that read their source during the sync (so the sync needs its second barrier). */
    int unbuffered;
    /** Buffered puts: records [dstOffset, slot << 32 | size, attrIndex + 1 << 32 | next] + payload. */
    private final long[] buffer;
    private final MemorySegment bufferSegment;
    private int bufferUsed;
    final int[] bufferedHead;
    private final int[] bufferedTail;

    RequestQueue(int capacity, int nprocs) {
        this.capacity = capacity;
        this.words = new long[STRIPE * capacity];
        this.segments = new MemorySegment[capacity];
        this.attrs = new MsgAttr[capacity];
        this.getPid = new int[capacity];
        this.putHead = new int[nprocs];
        this.putTail = new int[nprocs];
        Arrays.fill(putHead, NONE);
        Arrays.fill(putTail, NONE);
        long bufferBytes = Math.min((long) capacity * (BUFFERED_MAX + HEADER_BYTES), MAX_BUFFER_BYTES);
        this.buffer = new long[(int) ((bufferBytes + 7) / 8)];
        this.bufferSegment = MemorySegment.ofArray(buffer);
        this.bufferedHead = new int[nprocs];
        this.bufferedTail = new int[nprocs];
        Arrays.fill(bufferedHead, NONE);
        Arrays.fill(bufferedTail, NONE);
    }

    /** Bytes a queue of {@code capacity} requests occupies (two are kept per process). */
    static long bytesFor(long capacity) {
        return capacity * (STRIPE * 8 + 4 + 4 + 4) + Math.min(capacity * (BUFFERED_MAX + HEADER_BYTES), MAX_BUFFER_BYTES);
    }

    /** @return a queue of {@code newCapacity} holding this queue's requests */
    RequestQueue grownTo(int newCapacity) {
        RequestQueue q = new RequestQueue(newCapacity, putHead.length);
        System.arraycopy(words, 0, q.words, 0, STRIPE * count);
        System.arraycopy(segments, 0, q.segments, 0, count);
        System.arraycopy(attrs, 0, q.attrs, 0, count);
        System.arraycopy(getPid, 0, q.getPid, 0, count);
        System.arraycopy(putHead, 0, q.putHead, 0, putHead.length);
        System.arraycopy(putTail, 0, q.putTail, 0, putTail.length);
        // Buffered records move with their buffer (positions stay valid in the larger one).
        System.arraycopy(buffer, 0, q.buffer, 0, bufferUsed);
        System.arraycopy(bufferedHead, 0, q.bufferedHead, 0, bufferedHead.length);
        System.arraycopy(bufferedTail, 0, q.bufferedTail, 0, bufferedTail.length);
        q.bufferUsed = bufferUsed;
        q.getHead = getHead;
        q.getTail = getTail;
        q.count = count;
        q.unbuffered = unbuffered;
        return q;
    }

    void addPut(MemorySegment src, long srcOffset, int dstPid, int dstSlot, long dstOffset, long size, MsgAttr attr) {
        int i = count++;
        int words = HEADER_WORDS + (int) ((size + 7) >>> 3);
        if (size <= BUFFERED_MAX && bufferUsed + words <= buffer.length) {
            int r = bufferUsed;
            bufferUsed += words;
            buffer[r] = dstOffset;
            buffer[r + 1] = ((long) dstSlot << 32) | size;
            long attrTag = 0;
            if (attr != MsgAttr.DEFAULT) {
                attrs[i] = attr;
                attrTag = (long) (i + 1) << 32;
            }
            buffer[r + 2] = attrTag | (NONE & 0xffffffffL);
            MemorySegment.copy(src, srcOffset, bufferSegment, 8L * (r + HEADER_WORDS), size);
            int tail = bufferedTail[dstPid];
            if (tail == NONE) bufferedHead[dstPid] = r;
            else buffer[tail + 2] = (buffer[tail + 2] & ~0xffffffffL) | (r & 0xffffffffL);
            bufferedTail[dstPid] = r;
            return;
        }
        segments[i] = src;
        unbuffered++;
        store(i, srcOffset, dstOffset, size, dstSlot, attr);
        int tail = putTail[dstPid];
        if (tail == NONE) putHead[dstPid] = i; else link(tail, i);
        putTail[dstPid] = i;
    }

    void addGet(int srcPid, int srcSlot, long srcOffset, MemorySegment dst, long dstOffset, long size) {
        int i = count++;
        segments[i] = dst;
        getPid[i] = srcPid;
        unbuffered++;
        store(i, srcOffset, dstOffset, size, srcSlot, MsgAttr.DEFAULT);
        if (getTail == NONE) getHead = i; else link(getTail, i);
        getTail = i;
    }

    private void store(int i, long srcOffset, long dstOffset, long size, int slot, MsgAttr attr) {
        int w = STRIPE * i;
        words[w] = srcOffset;
        words[w + 1] = dstOffset;
        words[w + 2] = size;
        boolean special = attr != MsgAttr.DEFAULT;
        if (special) attrs[i] = attr;
        words[w + 3] = ((long) slot << 33) | (special ? HAS_ATTR : 0) | (NONE & 0xffffffffL);
    }

    private void link(int from, int to) {
        int w = STRIPE * from + 3;
        words[w] = (words[w] & ~0xffffffffL) | (to & 0xffffffffL);
    }

    long srcOffset(int i) { return words[STRIPE * i]; }

    long dstOffset(int i) { return words[STRIPE * i + 1]; }

    long size(int i) { return words[STRIPE * i + 2]; }

    int slot(int i) { return (int) (words[STRIPE * i + 3] >>> 33); }

    int next(int i) { return (int) words[STRIPE * i + 3]; }

    /** @return the non-default attribute of request i, or {@code null} for a plain copy */
    MsgAttr attr(int i) { return (words[STRIPE * i + 3] & HAS_ATTR) != 0 ? attrs[i] : null; }

    MemorySegment segment(int i) { return segments[i]; }

    int getPid(int i) { return getPid[i]; }

    // ---- buffered put records, addressed by their position r in the buffer ----

    long recordDstOffset(int r) { return buffer[r]; }

    int recordSlot(int r) { return (int) (buffer[r + 1] >>> 32); }

    long recordSize(int r) { return (int) buffer[r + 1]; }

    int recordNext(int r) { return (int) buffer[r + 2]; }

    /** @return the record's non-default attribute, or {@code null} */
    MsgAttr recordAttr(int r) {
        int tag = (int) (buffer[r + 2] >>> 32);
        return tag == 0 ? null : attrs[tag - 1];
    }

    MemorySegment recordData() { return bufferSegment; }

    static long recordDataOffset(int r) { return 8L * (r + HEADER_WORDS); }

    /** Empties the queue; only when no other process can still be reading it. */
    void clear() {
        if (count == 0) return;
        Arrays.fill(segments, 0, count, null);
        Arrays.fill(attrs, 0, count, null);
        Arrays.fill(putHead, NONE);
        Arrays.fill(putTail, NONE);
        Arrays.fill(bufferedHead, NONE);
        Arrays.fill(bufferedTail, NONE);
        getHead = NONE;
        getTail = NONE;
        count = 0;
        unbuffered = 0;
        bufferUsed = 0;
    }
}
