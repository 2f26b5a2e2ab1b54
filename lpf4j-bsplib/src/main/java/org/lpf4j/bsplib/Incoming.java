package org.lpf4j.bsplib;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.lpf4j.bsplib.Buffer.align8;

/**
 * The receive queue: the message records delivered by the last sync, by segment (the inboxes or
 * the receive buffer) and offset, in delivery order; their tag size is that of the superstep they
 * were sent in. O(1) per operation besides the bytes copied; no allocation once grown (except
 * {@link #hpmove()}'s record and views).
 */
final class Incoming {
    private int head, end;
    private MemorySegment[] seg = new MemorySegment[16];
    private long[] off = new long[16];
    private long tagSize, payload;
    // Read-only views of the last two segments records were in (hpmove into a view allocates nothing).
    private MemorySegment viewOf, view, viewOf2, view2;

    /** Appends the message record at {@code at} of {@code s}. */
    void enqueue(MemorySegment s, long at) {
        if (end == seg.length) {
            seg = Arrays.copyOf(seg, 2 * end);
            off = Arrays.copyOf(off, 2 * end);
        }
        seg[end] = s;
        off[end++] = at;
    }

    /** Empties the queue (before a sync delivers new messages). */
    void clear() {
        Arrays.fill(seg, 0, end, null);
        head = 0;
        end = 0;
        payload = 0;
    }

    /** The delivery is complete: the messages were sent with {@code sentTagSize} and carry {@code payloadBytes}. */
    void delivered(long sentTagSize, long payloadBytes) {
        tagSize = sentTagSize;
        payload = payloadBytes;
    }

    long size() { return end - head; }

    boolean isEmpty() { return head == end; }

    long payloadBytes() { return payload; }

    long tagSize() { return tagSize; }

    /** @return the next message's payload length (the queue is not empty) */
    long nextLength() { return seg[head].get(JAVA_LONG, off[head] + 8); }

    /** Copies the next message's tag to {@code tag} at {@code at}. */
    void copyTag(MemorySegment tag, long at) {
        if (tagSize > 0) MemorySegment.copy(seg[head], off[head] + Streams.MSG_HDR, tag, at, tagSize);
    }

    /** Copies {@code n} bytes of the next message's payload to {@code dst} at {@code at}, and removes it. */
    void move(MemorySegment dst, long at, long n) {
        if (n > 0) MemorySegment.copy(seg[head], off[head] + Streams.MSG_HDR + align8(tagSize), dst, at, n);
        advance();
    }

    /** Removes the next message, returning read-only slices of its tag and payload. */
    BspMessage hpmove() {
        MemorySegment s = seg[head];
        long at = off[head], len = nextLength();
        MemorySegment ro = s.asReadOnly();
        BspMessage m = new BspMessage(ro.asSlice(at + Streams.MSG_HDR, tagSize), ro.asSlice(at + Streams.MSG_HDR + align8(tagSize), len));
        advance();
        return m;
    }

    /** Removes the next message, pointing {@code into} at its tag and payload; returns the payload length. */
    long hpmove(BspMessageView into) {
        MemorySegment s = seg[head];
        long at = off[head], len = nextLength();
        into.set(readOnly(s), at + Streams.MSG_HDR, tagSize, at + Streams.MSG_HDR + align8(tagSize), len);
        advance();
        return len;
    }

    private MemorySegment readOnly(MemorySegment s) {
        if (s == viewOf) return view;
        if (s != viewOf2) {
            viewOf2 = s;
            view2 = s.asReadOnly();
        }
        MemorySegment of = viewOf, v = view; // the most recent first
        viewOf = viewOf2;
        view = view2;
        viewOf2 = of;
        view2 = v;
        return view;
    }

    private void advance() {
        payload -= nextLength();
        seg[head++] = null;
    }
}
