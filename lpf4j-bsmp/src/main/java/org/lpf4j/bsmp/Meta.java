package org.lpf4j.bsmp;

/**
 * The per-pair summary one process sends another in the first superstep of a WRITE→READ sync:
 * four {@code long}s, at index {@code sender * ENTRY} in the receiver's incoming array and at
 * {@code receiver * ENTRY} in the sender's outgoing array.
 */
final class Meta {
    private Meta() {}

    /** Bytes of one entry. */
    static final long ENTRY = 4L * Long.BYTES;
    /** Offset in the sender's outbox of the block of records for the receiver. */
    static final long START = 0;
    /** Bytes of that block (whole records). */
    static final long RECORD_BYTES = Long.BYTES;
    /** Messages in that block. */
    static final long MESSAGES = 2L * Long.BYTES;
    /** Payload bytes of those messages (what the receiver's {@code bufferSize} bounds). */
    static final long PAYLOAD_BYTES = 3L * Long.BYTES;
}
