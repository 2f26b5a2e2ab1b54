package org.lpf4j.bsmp;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The receiver's side of a WRITE→READ exchange and the read cursor of the READ superstep.
 *
 * <p>After the first sync the receiver knows, from the {@link Meta} entries the senders put into
 * its {@code metaIn}, how many record bytes each sender has for it and where they are in the
 * sender's outbox. It places the senders' blocks one after the other in its inbox (a prefix sum:
 * blocks never overlap, whatever the number of senders) and fetches each with one get. Reading
 * then walks the records in order. Preallocated; nothing here allocates except an error text.
 */
final class ReceiveQueue {
    private final RecordLayout layout;
    private final int[] source;
    private final long[] blockEnd;
    private int blocks;
    private int block;
    private long readPos;
    private long readEnd;
    private long remaining;

    ReceiveQueue(RecordLayout layout, int nprocs) {
        this.layout = layout;
        this.source = new int[nprocs];
        this.blockEnd = new long[nprocs];
    }

    /**
     * Reads the senders' entries in {@code metaIn}, zeroes them for the next exchange and, if the
     * whole superstep fits this object's budget, queues one get per sender into the inbox.
     *
     * @return {@code null}, or why nothing was fetched (the budget was exceeded)
     */
    String request(Context ctx, MemorySegment metaIn, Memslot outboxSlot, Memslot inboxSlot) {
        clear();
        int nprocs = source.length;
        long messages = 0, payload = 0, records = 0;
        for (int s = 0; s < nprocs; s++) {
            long at = s * Meta.ENTRY;
            messages += metaIn.get(ValueLayout.JAVA_LONG, at + Meta.MESSAGES);
            payload += metaIn.get(ValueLayout.JAVA_LONG, at + Meta.PAYLOAD_BYTES);
            records += metaIn.get(ValueLayout.JAVA_LONG, at + Meta.RECORD_BYTES);
        }
        if (messages > layout.maxMessages || payload > layout.bufferSize || records > layout.capacity()) {
            metaIn.fill((byte) 0);
            return "pid " + ctx.pid() + " was sent " + messages + " messages with " + payload
                    + " payload bytes in one superstep, more than this Bsmp's maxMessages=" + layout.maxMessages
                    + " / bufferSize=" + layout.bufferSize + "; the messages of that superstep to pid " + ctx.pid()
                    + " are dropped";
        }
        long at = 0;
        for (int s = 0; s < nprocs; s++) {
            long entry = s * Meta.ENTRY;
            long bytes = metaIn.get(ValueLayout.JAVA_LONG, entry + Meta.RECORD_BYTES);
            if (bytes == 0) continue;
            ctx.get(s, outboxSlot, metaIn.get(ValueLayout.JAVA_LONG, entry + Meta.START), inboxSlot, at, bytes);
            at += bytes;
            source[blocks] = s;
            blockEnd[blocks++] = at;
        }
        metaIn.fill((byte) 0);
        remaining = messages;
        readEnd = at;
        return null;
    }

    /** @return messages not yet read */
    long remaining() { return remaining; }

    /** @return whether a record is left to read */
    boolean hasNext() { return readPos < readEnd; }

    /**
     * Advances past the next record.
     *
     * @param inbox the buffer the records arrived in
     * @return the offset of the record
     */
    long next(MemorySegment inbox) {
        long at = readPos;
        while (at >= blockEnd[block]) block++;
        readPos = at + layout.recordSize(inbox.get(ValueLayout.JAVA_LONG, at));
        remaining--;
        return at;
    }

    /** @return the sender of the record {@link #next} returned last */
    int source() { return source[block]; }

    /** Drops whatever is left. */
    void clear() {
        blocks = 0;
        block = 0;
        readPos = 0;
        readEnd = 0;
        remaining = 0;
    }
}
