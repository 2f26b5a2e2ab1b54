package org.lpf4j.bsplib;

import java.lang.foreign.MemorySegment;

/**
 * Where a message taken out of the queue by {@link Bsplib#hpmove(BspMessageView)} lies: a
 * read-only view of the layer's receive memory and the offsets of the tag and the payload in it
 * ({@code bsp_hpmove}'s two pointers). One view is reused for every message, so taking messages
 * this way allocates nothing; {@link Bsplib#hpmove()} returns a fresh {@link BspMessage} instead.
 * What it points at is valid until the next {@link Bsplib#sync()}. Not thread-safe; O(1) accessors.
 *
 * <pre>{@code
 * BspMessageView m = new BspMessageView();              // once
 * while (bsp.hpmove(m) >= 0) sum += m.segment().get(JAVA_LONG, m.payloadOffset());
 * }</pre>
 */
public final class BspMessageView {
    private MemorySegment segment = MemorySegment.NULL;
    private long tagOffset, tagSize, payloadOffset, payloadSize;

    /** An empty view (a zero-length segment) until an {@code hpmove} fills it. */
    public BspMessageView() {}

    void set(MemorySegment segment, long tagOffset, long tagSize, long payloadOffset, long payloadSize) {
        this.segment = segment;
        this.tagOffset = tagOffset;
        this.tagSize = tagSize;
        this.payloadOffset = payloadOffset;
        this.payloadSize = payloadSize;
    }

    /** @return the read-only memory the tag and payload are in (more than this message) */
    public MemorySegment segment() { return segment; }

    /** @return the byte offset of the tag in {@link #segment()} */
    public long tagOffset() { return tagOffset; }

    /** @return the tag's bytes (the tag size of the superstep the message was sent in) */
    public long tagSize() { return tagSize; }

    /** @return the byte offset of the payload in {@link #segment()} */
    public long payloadOffset() { return payloadOffset; }

    /** @return the payload's bytes */
    public long payloadSize() { return payloadSize; }
}
