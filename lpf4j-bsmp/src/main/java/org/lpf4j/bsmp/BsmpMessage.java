package org.lpf4j.bsmp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A received message, as {@link Bsmp#move()} hands it out: the sender, the tag and the payload.
 *
 * <p><b>Reuse.</b> To keep {@code move()} free of allocation, each {@link Bsmp} owns one
 * {@code BsmpMessage} and every {@code move()} overwrites it with the next message: read what you
 * need before the next {@code move()}. The views {@link #tag()} and {@link #payload()} return
 * stay valid (they keep pointing at this message's bytes) until the next
 * {@link Bsmp#sync() sync} of the object, after which the buffer is reused for new messages.
 *
 * <p><b>Cost.</b> {@link #source()}, {@link #size()}, the offsets, {@link #tagInt()} and
 * {@link #tagLong()} allocate nothing; {@link #tag()} and {@link #payload()} create a small
 * view object each (use {@link #buffer()} with {@link #tagOffset()} / {@link #payloadOffset()}
 * where even that matters); {@link #payloadBytes()} copies.
 *
 * <p>Tag and payload are read-only and start at 8-byte aligned addresses.
 */
public final class BsmpMessage {
    private final MemorySegment buffer;
    private final long tagSize;
    private int source;
    private long tagOffset;
    private long payloadOffset;
    private long size;

    BsmpMessage(MemorySegment readOnlyInbox, long tagSize) {
        this.buffer = readOnlyInbox;
        this.tagSize = tagSize;
    }

    void set(int source, long tagOffset, long payloadOffset, long size) {
        this.source = source;
        this.tagOffset = tagOffset;
        this.payloadOffset = payloadOffset;
        this.size = size;
    }

    /** @return the pid that sent this message */
    public int source() { return source; }

    /** @return the payload size in bytes (may be 0) */
    public long size() { return size; }

    /** @return the tag size in bytes, the same for every message of the object */
    public long tagSize() { return tagSize; }

    /** @return a read-only view of the whole receive buffer (the same object for every message) */
    public MemorySegment buffer() { return buffer; }

    /** @return where this message's tag starts in {@link #buffer()} */
    public long tagOffset() { return tagOffset; }

    /** @return where this message's payload starts in {@link #buffer()} */
    public long payloadOffset() { return payloadOffset; }

    /** @return a read-only view of the tag ({@link #tagSize()} bytes), valid until the next sync */
    public MemorySegment tag() { return buffer.asSlice(tagOffset, tagSize); }

    /** @return a read-only view of the payload ({@link #size()} bytes), valid until the next sync */
    public MemorySegment payload() { return buffer.asSlice(payloadOffset, size); }

    /**
     * @return the tag as an {@code int} (as {@link Bsmp#sendIntTag} wrote it)
     * @throws IllegalStateException if the tag size is not 4
     */
    public int tagInt() {
        if (tagSize != Integer.BYTES) throw wrongTag("tagInt", Integer.BYTES);
        return buffer.get(ValueLayout.JAVA_INT, tagOffset);
    }

    /**
     * @return the tag as a {@code long} (as {@link Bsmp#sendLongTag} wrote it)
     * @throws IllegalStateException if the tag size is not 8
     */
    public long tagLong() {
        if (tagSize != Long.BYTES) throw wrongTag("tagLong", Long.BYTES);
        return buffer.get(ValueLayout.JAVA_LONG, tagOffset);
    }

    /**
     * @return a copy of the payload
     * @throws IllegalStateException if the payload does not fit a Java array
     */
    public byte[] payloadBytes() { return payload().toArray(ValueLayout.JAVA_BYTE); }

    private IllegalStateException wrongTag(String call, int bytes) {
        return new IllegalStateException("BsmpMessage." + call + "(): the tag has " + tagSize + " bytes, not " + bytes);
    }

    @Override
    public String toString() {
        return "BsmpMessage[from pid " + source + ", tag " + tagSize + " B, payload " + size + " B]";
    }
}
