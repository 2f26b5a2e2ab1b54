package org.lpf4j.bsplib;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.lpf4j.bsplib.Buffer.align8;

/**
 * The stream codec: what a process sends each other process at a sync, and how the receiver reads
 * it. Each destination has a region of {@link #regionBytes} in {@code streams} (local), received
 * into this process's region in every other process's {@code inboxes} (global). A region is a
 * header of {@link #W} longs followed by records, 8-aligned:
 * <ul>
 *   <li>a put: {@code (seq << 1, offset, size)} then the bytes ({@link #PUT_HDR} + size);</li>
 *   <li>a message: {@code (1, payload length)}, the tag, then the payload ({@link #MSG_HDR} +
 *       tag + payload).</li>
 * </ul>
 * A record that does not fit its destination's region goes to the spill buffer, and so do all
 * later ones for that destination (the sync then takes the full protocol, which sends them as
 * core requests). Locations are longs: ≥ 0 an offset in the streams, else the complement of an
 * offset in the spill buffer.
 */
final class Streams {
    /** Longs per stream header. */
    static final int W = 16;
    static final long HDR = 8L * W;
    /** The header's fields: the same on every process, read by every receiver. */
    static final int H_STREAM = 0, H_REQS = 1, H_MSG_BYTES = 2, H_MSGS = 3, H_PAYLOAD = 4, H_OUTBOX_OFF = 5, H_OUT = 6,
            H_MAX_TO = 7, H_FLAGS = 8, H_TAG = 9, H_PUSH = 10, H_POP = 11, H_MAX_STREAM = 12, H_DIRECT = 13, H_POPPED = 14;
    /** Record headers: a put's (registration, offset, size), a message's (kind, payload length). */
    static final long PUT_HDR = 24, MSG_HDR = 16;
    /** Region bytes per destination: at first, and at most (larger streams take the full protocol). */
    static final long R_INIT = 4096, R_MAX = 256 * 1024;

    private final Context ctx;
    private final int pid, nprocs;
    /** p regions of regionBytes: the streams this process sends (local) and receives (global). */
    private MemorySegment streams, inboxes;
    private Memslot streamsSlot, inboxesSlot;
    private long regionBytes = R_INIT;
    private final long[] streamUsed, recBytesTo;
    private final boolean[] spilled;
    private final Buffer spill;

    Streams(Context ctx) {
        this.ctx = ctx;
        this.pid = ctx.pid();
        this.nprocs = ctx.nprocs();
        streamUsed = new long[nprocs];
        recBytesTo = new long[nprocs];
        spilled = new boolean[nprocs];
        spill = new Buffer(ctx);
    }

    /** Allocates and registers the regions (inboxes globally: collective). */
    void open() {
        Arena arena = Arena.ofAuto();
        streams = arena.allocate(regionBytes * nprocs, 8);
        inboxes = arena.allocate(regionBytes * nprocs, 8);
        inboxesSlot = ctx.registerGlobal(inboxes);
        streamsSlot = ctx.registerLocal(streams);
    }

    long regionBytes() { return regionBytes; }

    /** @return the bytes a message record of {@code nbytes} takes under tag size {@code tagSize} */
    static long msgRecord(long tagSize, long nbytes) { return MSG_HDR + align8(tagSize) + align8(nbytes); }

    /**
     * Places a record of {@code bytes} for {@code q}: in q's stream region while it fits and nothing
     * for q has spilled, else in the spill buffer. Keeps the per-destination totals.
     *
     * @return the record's location
     */
    long place(int q, long bytes) {
        recBytesTo[q] += bytes;
        if (!spilled[q] && HDR + streamUsed[q] + bytes <= regionBytes) {
            long at = q * regionBytes + HDR + streamUsed[q];
            streamUsed[q] += bytes;
            return at;
        }
        spilled[q] = true;
        return ~spill.take(bytes);
    }

    MemorySegment segOf(long loc) { return loc >= 0 ? streams : spill.seg; }

    static long offOf(long loc) { return loc >= 0 ? loc : ~loc; }

    /** @return the slot of the memory a location is in (the spill buffer is registered on demand) */
    Memslot slotOf(long loc) { return loc >= 0 ? streamsSlot : spill.slot(); }

    /** Writes a put record for {@code q}: registration {@code seq}, the destination offset, the bytes. */
    long putRecord(int q, int seq, long dstOffset, MemorySegment src, long srcOffset, long nbytes) {
        long loc = place(q, PUT_HDR + align8(nbytes));
        MemorySegment seg = segOf(loc);
        long at = offOf(loc);
        seg.set(JAVA_LONG, at, (long) seq << 1);
        seg.set(JAVA_LONG, at + 8, dstOffset);
        seg.set(JAVA_LONG, at + 16, nbytes);
        MemorySegment.copy(src, srcOffset, seg, at + PUT_HDR, nbytes);
        return loc;
    }

    /** Writes a message record's header for {@code q}; its tag and payload follow ({@link #copyMsg}). */
    long msgRecord(int q, long rec, long nbytes) {
        long loc = place(q, rec);
        MemorySegment seg = segOf(loc);
        long at = offOf(loc);
        seg.set(JAVA_LONG, at, 1);
        seg.set(JAVA_LONG, at + 8, nbytes);
        return loc;
    }

    /** @return the payload length of the message record at {@code loc} */
    long msgLength(long loc) { return segOf(loc).get(JAVA_LONG, offOf(loc) + 8); }

    void copyMsg(long loc, long tagSize, MemorySegment tag, long tagOffset, MemorySegment payload, long payloadOffset, long nbytes) {
        MemorySegment seg = segOf(loc);
        long at = offOf(loc);
        if (tagSize > 0) MemorySegment.copy(tag, tagOffset, seg, at + MSG_HDR, tagSize);
        if (nbytes > 0) MemorySegment.copy(payload, payloadOffset, seg, at + MSG_HDR + align8(tagSize), nbytes);
    }

    /** @return whether a record for some destination spilled */
    boolean anySpilled() {
        for (int q = 0; q < nprocs; q++) if (spilled[q]) return true;
        return false;
    }

    /** @return the most record bytes this superstep has for one destination */
    long maxStream() {
        long m = 0;
        for (int q = 0; q < nprocs; q++) m = Math.max(m, recBytesTo[q]);
        return m;
    }

    /** Sets a field of the header of the stream for {@code q}. */
    void header(int q, int field, long value) { streams.set(JAVA_LONG, q * regionBytes + 8L * field, value); }

    /** @return a field of the header received from {@code r} */
    long header(int r, int field) { return inboxes.get(JAVA_LONG, r * regionBytes + 8L * field); }

    /** @return the record bytes of the stream for {@code q} that the one-superstep sync sends */
    long streamBytes(int q) { return spilled[q] ? 0 : streamUsed[q]; }

    /** Sends the stream for {@code q} (its header, and its records unless they spilled) as a core put. */
    void send(int q) {
        long b = q * regionBytes, n = HDR + streamBytes(q);
        // Own stream: copied, so that its messages outlive this superstep's new sends.
        if (q == pid) MemorySegment.copy(streams, b, inboxes, pid * regionBytes, n);
        else ctx.put(streamsSlot, b, q, inboxesSlot, pid * regionBytes, n);
    }

    /**
     * Applies the put records of the stream received from {@code r} and queues its messages.
     *
     * @param superstep the sync's number, for errors
     */
    void applyStream(int r, Registry registry, Incoming queue, long tagSize, long superstep) {
        long base = r * regionBytes + HDR, end = base + header(r, H_STREAM), tagBytes = align8(tagSize);
        for (long at = base; at < end; ) {
            long kind = inboxes.get(JAVA_LONG, at);
            if (kind == 1) {
                queue.enqueue(inboxes, at);
                at += MSG_HDR + tagBytes + align8(inboxes.get(JAVA_LONG, at + 8));
                continue;
            }
            int seq = (int) (kind >>> 1);
            long off = inboxes.get(JAVA_LONG, at + 8), size = inboxes.get(JAVA_LONG, at + 16);
            AreaTable.Reg reg = registry.bySeq(seq);
            if (reg == null) {
                throw new IllegalStateException(Sync.where(pid, nprocs, superstep) + ": a put from pid " + r + " names registration #" + seq
                        + ", which is not registered here");
            }
            if (off > reg.size - size) {
                throw new IndexOutOfBoundsException(Sync.where(pid, nprocs, superstep) + ": a put from pid " + r + " of " + size + " bytes at offset "
                        + off + " is past this process's registered area of " + reg.size + " bytes");
            }
            MemorySegment.copy(inboxes, at + PUT_HDR, reg.area, off, size);
            at += PUT_HDR + align8(size);
        }
    }

    /**
     * Sends {@code n} bytes at {@code from} in {@code src} to every process, into this process's
     * region of their inboxes (free once the headers are read), for {@link #received}.
     */
    void scatter(Memslot src, long from, long n) {
        for (int q = 0; q < nprocs; q++) ctx.put(src, from, q, inboxesSlot, pid * regionBytes, n);
    }

    /** @return the long at {@code at} in the region received from {@code r} by {@link #scatter} */
    long received(int r, long at) { return inboxes.get(JAVA_LONG, r * regionBytes + at); }

    /** Replaces the inboxes by regions of {@code newRegion} (collective re-registration); the streams follow at {@link #reset}. */
    void growInboxes(long newRegion) {
        ctx.deregister(inboxesSlot);
        inboxes = Arena.ofAuto().allocate(newRegion * nprocs, 8);
        inboxesSlot = ctx.registerGlobal(inboxes);
        regionBytes = newRegion;
    }

    /** Starts a new superstep's streams (grown to the region size if the inboxes grew). */
    void reset() {
        if (streams.byteSize() != regionBytes * nprocs) {
            ctx.deregister(streamsSlot);
            streams = Arena.ofAuto().allocate(regionBytes * nprocs, 8);
            streamsSlot = ctx.registerLocal(streams);
        }
        spill.used = 0;
        Arrays.fill(streamUsed, 0);
        Arrays.fill(recBytesTo, 0);
        Arrays.fill(spilled, false);
    }

    void end() {
        ctx.deregister(streamsSlot);
        ctx.deregister(inboxesSlot);
        spill.release();
    }
}
