package org.lpf4j.bsmp;

import org.lpf4j.LpfOutOfMemoryException;

/**
 * Where a message lives in a {@link Bsmp} buffer and how large the buffers must be.
 *
 * <p>A message is one record: an 8-byte header holding the payload size, the tag padded to a
 * multiple of 8 bytes, then the payload padded to a multiple of 8 bytes. Records start at
 * multiples of 8 of an 8-aligned buffer, so tag and payload views are 8-aligned and may be read
 * with aligned value layouts. A buffer of {@link #capacity()} bytes holds any set of at most
 * {@code maxMessages} records whose payloads sum to at most {@code bufferSize} bytes.
 */
final class RecordLayout {
    /** Bytes of a record's header (the payload size as a {@code long}). */
    static final long HEADER = Long.BYTES;
    /** Alignment of buffers, records, tags and payloads. */
    static final long ALIGN = Long.BYTES;

    final long bufferSize;
    final long tagSize;
    final int maxMessages;
    /** The tag's bytes in a record, a multiple of {@link #ALIGN}. */
    final long tagSpace;
    private final long capacity;

    /**
     * @throws LpfOutOfMemoryException if the sizes cannot be represented (the buffers could never
     *                                 be allocated)
     */
    RecordLayout(String call, long bufferSize, long tagSize, long maxMessages) {
        this.bufferSize = bufferSize;
        this.tagSize = tagSize;
        if (maxMessages > Integer.MAX_VALUE - 16) {
            throw new LpfOutOfMemoryException(call + ": maxMessages=" + maxMessages
                    + " exceeds the " + (Integer.MAX_VALUE - 16) + " messages a Java array can describe", null);
        }
        this.maxMessages = (int) maxMessages;
        try {
            this.tagSpace = Math.addExact(tagSize, ALIGN - 1) & -ALIGN;
            long perMessage = Math.addExact(Math.addExact(HEADER, tagSpace), ALIGN - 1);
            this.capacity = Math.addExact(bufferSize, Math.multiplyExact(maxMessages, perMessage));
        } catch (ArithmeticException e) {
            throw new LpfOutOfMemoryException(call + ": the buffers for bufferSize=" + bufferSize + ", tagSize=" + tagSize
                    + ", maxMessages=" + maxMessages + " exceed the address space", e);
        }
    }

    /** @return bytes of one buffer: every record of a full superstep fits */
    long capacity() { return capacity; }

    /** @return bytes of the record of a message with {@code payloadSize} payload bytes */
    long recordSize(long payloadSize) {
        return HEADER + tagSpace + ((payloadSize + ALIGN - 1) & -ALIGN);
    }

    /** @return offset of the tag of the record at {@code record} */
    long tagOffset(long record) { return record + HEADER; }

    /** @return offset of the payload of the record at {@code record} */
    long payloadOffset(long record) { return record + HEADER + tagSpace; }
}
