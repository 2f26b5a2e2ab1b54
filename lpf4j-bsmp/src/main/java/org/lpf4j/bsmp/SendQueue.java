package org.lpf4j.bsmp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The sender's bookkeeping of one WRITE superstep: which records were staged where, for whom,
 * and the totals per destination. Records are staged in send order; after the first sync of the
 * exchange they are regrouped into one contiguous block per destination, which the destination
 * then fetches with a single get. Preallocated; nothing here allocates.
 */
final class SendQueue {
    private final RecordLayout layout;
    private final int[] destination;
    private final long[] record;
    private int messages;
    private long payloadBytes;
    private long staged;
    private final long[] destMessages;
    private final long[] destRecordBytes;
    private final long[] destPayloadBytes;
    /** Per destination: where its next record goes in the outbox (set by {@link #writeMeta}). */
    private final long[] cursor;

    SendQueue(RecordLayout layout, int nprocs) {
        this.layout = layout;
        this.destination = new int[layout.maxMessages];
        this.record = new long[layout.maxMessages];
        this.destMessages = new long[nprocs];
        this.destRecordBytes = new long[nprocs];
        this.destPayloadBytes = new long[nprocs];
        this.cursor = new long[nprocs];
    }

    /** @return messages staged this superstep */
    int messages() { return messages; }

    /** @return payload bytes staged this superstep */
    long payloadBytes() { return payloadBytes; }

    /** @return whether one more message of {@code size} payload bytes fits the budget */
    boolean fits(long size) {
        return messages < layout.maxMessages && size <= layout.bufferSize - payloadBytes;
    }

    /** @return the staging offset the next message's record will occupy */
    long nextRecord() { return staged; }

    /**
     * Accounts a message whose tag and payload are (or will be, by the next sync) at
     * {@link #nextRecord()}, and writes its header there. Call only after {@link #fits}.
     */
    void commit(MemorySegment staging, int pid, long size) {
        long at = staged, bytes = layout.recordSize(size);
        staging.set(ValueLayout.JAVA_LONG, at, size);
        destination[messages] = pid;
        record[messages] = at;
        messages++;
        payloadBytes += size;
        staged = at + bytes;
        destMessages[pid]++;
        destRecordBytes[pid] += bytes;
        destPayloadBytes[pid] += size;
    }

    /** @return messages staged for {@code pid} */
    long messagesTo(int pid) { return destMessages[pid]; }

    /**
     * Lays out the outbox (one block per destination, in pid order) and writes each
     * destination's {@link Meta} entry into {@code metaOut}.
     */
    void writeMeta(MemorySegment metaOut) {
        long start = 0;
        for (int d = 0; d < cursor.length; d++) {
            long at = d * Meta.ENTRY;
            metaOut.set(ValueLayout.JAVA_LONG, at + Meta.START, start);
            metaOut.set(ValueLayout.JAVA_LONG, at + Meta.RECORD_BYTES, destRecordBytes[d]);
            metaOut.set(ValueLayout.JAVA_LONG, at + Meta.MESSAGES, destMessages[d]);
            metaOut.set(ValueLayout.JAVA_LONG, at + Meta.PAYLOAD_BYTES, destPayloadBytes[d]);
            cursor[d] = start;
            start += destRecordBytes[d];
        }
    }

    /**
     * Copies every staged record (whose bytes have arrived by now) into its destination's block
     * of the outbox, then forgets the superstep.
     */
    void regroup(MemorySegment staging, MemorySegment outbox) {
        for (int i = 0; i < messages; i++) {
            int d = destination[i];
            long from = record[i];
            long bytes = layout.recordSize(staging.get(ValueLayout.JAVA_LONG, from));
            MemorySegment.copy(staging, from, outbox, cursor[d], bytes);
            cursor[d] += bytes;
        }
        clear();
    }

    /** Forgets every staged message (the bytes stay where they are, unreferenced). */
    void clear() {
        messages = 0;
        payloadBytes = 0;
        staged = 0;
        Arrays.fill(destMessages, 0);
        Arrays.fill(destRecordBytes, 0);
        Arrays.fill(destPayloadBytes, 0);
    }
}
