package org.lpf4j.engine.threads.group;

/**
 * The layout of a {@link RequestQueue}'s outbox, described once (as Agrona's
 * {@code RecordDescriptor} does): every offset the queue writes and its readers read is named
 * here. All words are {@code long}s in native byte order.
 *
 * <pre>
 * outbox (64-byte aligned native segment)
 * +--------------------------- mailbox line of pid 0 (LINE = 64 bytes) ----------------------------+
 * | STAMP: superstep | first record: DST_OFFSET SIZE NEXT META | inline payload (≤ INLINE_MAX = 24 B) |
 * |  0               |  8 (= MAILBOX_RECORD)                  | 8 + HEADER = 40                      |
 * +-------------------------------------------------------------------------------------------------+
 * | mailbox line of pid 1 ... pid p-1                                                                 |
 * +-------------------------------------------------------------------------------------------------+
 * | chained records, from LINE · p:                                                                   |
 * |   buffered:   DST_OFFSET SIZE NEXT META | payload, padded to 8 bytes (≤ BUFFERED_MAX)             |
 * |   unbuffered: DST_OFFSET SIZE NEXT META | SOURCE_OFFSET (the data stays in the sender's source)   |
 * +-------------------------------------------------------------------------------------------------+
 *
 * record (offsets from its start r)       META word
 *   0  DST_OFFSET  destination offset       bits 63..32  destination global slot id
 *   8  SIZE        bytes (0: heads a chain)  bit  31      BUFFERED (payload follows the header)
 *  16  NEXT        next record, or NONE      bit  30      HAS_ATTR (attribute at the request index)
 *  24  META        see right                 bits 29..0   request index (sources / attrs arrays)
 *  32  PAYLOAD or SOURCE_OFFSET
 * </pre>
 *
 * A mailbox counts only if its {@link #STAMP} equals the superstep being synchronised, so a
 * queue is emptied without touching what receivers read. Memory order: the owner writes every
 * word with plain stores during its superstep; other processes read them with plain loads only
 * after the superstep barrier, whose release/acquire orders them (hence the readers' accessors
 * in {@link RequestQueue.Outbox} are named {@code …AfterBarrier}).
 */
public final class OutboxLayout {
    private OutboxLayout() {}

    /** Bytes per mailbox line: one cache line per destination pid. */
    public static final long LINE = 64;
    /** Mailbox line: the superstep its record belongs to. */
    public static final long STAMP = 0;
    /** Mailbox line: where its record starts. */
    public static final long MAILBOX_RECORD = 8;

    /** Record: the destination offset. */
    public static final long DST_OFFSET = 0;
    /** Record: the size in bytes (0 for a mailbox that only heads a chain). */
    public static final long SIZE = 8;
    /** Record: the offset of the next record to the same pid, or {@link #NONE}. */
    public static final long NEXT = 16;
    /** Record: slot id, flags and request index (see the class comment). */
    public static final long META = 24;
    /** Bytes of a record header; the payload or the source offset follows. */
    public static final long HEADER = 32;
    /** Record: the payload of a buffered put, or the source offset of an unbuffered one. */
    public static final long PAYLOAD = HEADER;
    /** Bytes of an unbuffered record: the header and the source offset. */
    public static final long UNBUFFERED_RECORD = HEADER + 8;

    /** META: the payload follows the header. */
    public static final long BUFFERED = 1L << 31;
    /** META: the request has a non-default attribute. */
    public static final long HAS_ATTR = 1L << 30;
    /** META: the request index bits. */
    public static final long INDEX_MASK = HAS_ATTR - 1;
    /** META: the shift of the destination slot id. */
    public static final int SLOT_SHIFT = 32;

    /** No record (an empty mailbox, the end of a chain). */
    public static final long NONE = -1;
}
