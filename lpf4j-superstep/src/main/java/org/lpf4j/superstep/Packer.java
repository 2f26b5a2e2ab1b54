package org.lpf4j.superstep;

import org.lpf4j.spi.kit.BulkCopy;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.WireCounts;
import org.lpf4j.superstep.Transport.Channel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.lpf4j.superstep.ExchangeBuffers.PREFIX;
import static org.lpf4j.superstep.PackedHeader.DEFINE;
import static org.lpf4j.superstep.PackedHeader.GET;
import static org.lpf4j.superstep.PackedHeader.LENGTH;
import static org.lpf4j.superstep.PackedHeader.PUT_INLINE;
import static org.lpf4j.superstep.PackedHeader.PUT_LARGE;
import static org.lpf4j.superstep.PackedHeader.PUT_LOCAL;
import static org.lpf4j.superstep.PackedHeader.pad;

/**
 * The sending side of an {@link Exchange}: counts the bytes this rank's requests take in each
 * destination's packed stream ({@link #count}), packs them ({@link PackedHeader}) and sends the
 * streams ({@link #pack}), then the large puts, each as a message of its own ({@link #sendLarge}).
 * A put whose source cannot be read does not stop the exchange: zeros take its place and
 * {@link #failure} reports it.
 *
 * <p>Cost: O(requests + ranks) per sync; small payloads are copied once (into the stream), large
 * native ones not at all, large heap ones once (into a staging buffer), those of plain puts to this
 * rank itself not at all (listed in {@link LocalPuts}, copied once when applied). Allocates nothing unless a
 * buffer grows or a combining attribute is new. Used by the rank's exchanging thread only.
 */
final class Packer {
    /** Payloads of at least this many bytes to another rank travel as their own message. */
    static final long LARGE = 16 * 1024;

    private final Transport transport;
    /** Counts this rank's messages: each stream and large put it sends. */
    private final WireCounts wire;
    private final CombinerTable combiners;
    private final BulkCopy copier;
    private final int me, ranks;
    /** The transport's eager size: how much of a stream sent early goes first. */
    private final long earlyChunk;
    private final NativeBuffer packedOut, sendStaging = new NativeBuffer();
    private final long[] outBytes, outAt, replyInBytes, cursor, replyCursor, inlineOut;
    /** The areas this sync sends from in place (shared with {@link Delivery}, which receives around them). */
    private final InPlaceAreas inPlace;
    /** The sources of this sync's plain puts to this rank itself (shared with {@link Delivery}, which applies them). */
    private final LocalPuts local;
    /** Bytes of large puts from heap or freed memory that {@link #sendLarge} stages (counted by {@link #pack}). */
    private long heapLarge;
    /** The first put whose source {@link #pack} could not read (its memory was freed), or null. */
    private IllegalStateException packFailure;

    Packer(Transport transport, int me, int ranks, CombinerTable combiners, BulkCopy copier, WireCounts wire,
           ExchangeBuffers buffers, InPlaceAreas inPlace, LocalPuts local) {
        this.transport = transport;
        this.wire = wire;
        this.earlyChunk = transport.eagerBytes();
        this.copier = copier;
        this.combiners = combiners;
        this.me = me;
        this.ranks = ranks;
        this.inPlace = inPlace;
        this.local = local;
        packedOut = buffers.packedOut;
        outBytes = buffers.outBytes; outAt = buffers.outAt; replyInBytes = buffers.replyInBytes;
        cursor = buffers.cursor; replyCursor = buffers.replyCursor; inlineOut = buffers.inlineOut;
    }

    /** Combining puts always travel inline: they are applied by copying through the operator anyway. */
    private boolean isLarge(int rank, long size, int attr) { return rank != me && size >= LARGE && attr < 0; }

    /** A plain put to this rank itself is copied from its source when it is applied: its stream carries only its header. */
    private boolean isLocal(int rank, int attr) { return rank == me && attr < 0; }

    /**
     * Counts the packed bytes this rank sends to each rank and the reply bytes it expects;
     * interns the combining attributes a queue has not interned yet (a combining put's
     * {@code putTag} is its attribute id, or -1 until interned; -1 for a plain put). Allocates nothing unless an attribute is new.
     *
     * @return the number of requests the rank's processes queued
     * @throws IllegalArgumentException if a combining put's operator does not serialize
     */
    int count(NodeRequests r) {
        Arrays.fill(outBytes, 0);
        Arrays.fill(replyInBytes, 0);
        heapLarge = 0;
        packFailure = null;
        combiners.startCount();
        int n = 0;
        for (int l = 0, t = r.processes(); l < t; l++) {
            RequestList q = r.requests(l);
            n += q.count();
            for (int i = 0; i < q.puts; i++) {
                int d = r.rankOf(q.putPid[i]);
                int attr = q.putAttr[i] == null ? -1 : q.putTag[i] >= 0 ? q.putTag[i] : combiners.idOf(q.putAttr[i]);
                q.putTag[i] = attr;
                if (attr >= 0 && combiners.countDefinition(d, attr)) outBytes[d] += LENGTH + pad(combiners.definition(attr).length);
                long size = q.putSize[i];
                outBytes[d] += isLarge(d, size, attr) || isLocal(d, attr) ? LENGTH : LENGTH + pad(size);
            }
            for (int i = 0; i < q.gets; i++) {
                int s = r.rankOf(q.getPid[i]);
                outBytes[s] += LENGTH;
                replyInBytes[s] += q.getSize[i];
            }
        }
        return n;
    }

    private IllegalStateException freedSource(NodeRequests r, int l, int dstPid, long size, IllegalStateException cause) {
        return new IllegalStateException("put from pid " + r.pidOf(me, l) + " to pid " + dstPid + " (size=" + size + "): pid "
                + r.pidOf(me, l) + " closed the Arena of its source memory before the sync", cause);
    }

    /** @return the first put of this sync whose source could not be read (it travelled as zeros), or null */
    IllegalStateException failure() { return packFailure; }

    /**
     * Packs every local process's requests by destination rank (local process by local process,
     * each in its queue order) and sends the streams: {@code early}, each with its length in
     * front and split after {@code earlyChunk} bytes, else as they are. Each get's
     * {@code getTag} becomes where its reply starts in the reply stream of its owner's rank.
     */
    void pack(NodeRequests r, boolean early) {
        MemorySegment out = packedOut.atLeast(0);
        long[] at = cursor, replyAt = replyCursor;
        for (int d = 0; d < ranks; d++) at[d] = outAt[d] + PREFIX;
        Arrays.fill(replyAt, 0);
        Arrays.fill(inlineOut, 0);
        heapLarge = 0;
        local.clear();
        for (int l = 0, t = r.processes(); l < t; l++) {
            RequestList q = r.requests(l);
            for (int i = 0; i < q.puts; i++) {
                int d = r.rankOf(q.putPid[i]);
                long size = q.putSize[i];
                int attr = q.putTag[i];
                if (attr >= 0 && combiners.packDefinition(d, attr)) {
                    byte[] def = combiners.definition(attr);
                    PackedHeader.write(out, at[d], DEFINE, -1, l, 0, attr, 0, def.length);
                    MemorySegment.copy(def, 0, out, ValueLayout.JAVA_BYTE, at[d] + LENGTH, def.length);
                    at[d] += LENGTH + pad(def.length);
                }
                boolean large = isLarge(d, size, attr), toItself = isLocal(d, attr);
                PackedHeader.write(out, at[d], large ? PUT_LARGE : toItself ? PUT_LOCAL : PUT_INLINE, attr, l,
                        r.localOf(q.putPid[i]), q.putSlot[i], q.putDstOffset[i], size);
                at[d] += LENGTH;
                if (large) {
                    MemorySegment src = q.putSource[i];
                    if (!src.scope().isAlive()) { // freed: sendLarge sends zeros in its place, the sync throws this at its end
                        if (packFailure == null) packFailure = freedSource(r, l, q.putPid[i], size, null);
                        heapLarge += size;
                    } else if (!src.isNative()) {
                        heapLarge += size;
                    }
                } else if (toItself) {
                    boolean alive = q.putSource[i].scope().isAlive();
                    if (!alive && packFailure == null) packFailure = freedSource(r, l, q.putPid[i], size, null);
                    local.add(alive ? q.putSource[i] : null, q.putSrcOffset[i]);
                } else {
                    inlineOut[d] += size;
                    try {
                        copier.copy(q.putSource[i], q.putSrcOffset[i], out, at[d], size);
                    } catch (IllegalStateException e) { // its Arena was closed: the sync goes on, and throws this at its end
                        if (packFailure == null) packFailure = freedSource(r, l, q.putPid[i], size, e);
                        out.asSlice(at[d], size).fill((byte) 0);
                    }
                    at[d] += pad(size);
                }
            }
            for (int i = 0; i < q.gets; i++) {
                int s = r.rankOf(q.getPid[i]);
                PackedHeader.write(out, at[s], GET, -1, l, r.localOf(q.getPid[i]), q.getSlot[i], q.getSrcOffset[i], q.getSize[i]);
                at[s] += LENGTH;
                q.getTag[i] = replyAt[s];
                replyAt[s] += q.getSize[i];
            }
        }
        for (int d = 0; d < ranks; d++) {
            if (d == me || outBytes[d] == 0) continue;
            if (!early) {
                transport.send(Transport.REST, Channel.PACKED, out, outAt[d] + PREFIX, outBytes[d], d);
                wire.data(1, inlineOut[d], outBytes[d] - inlineOut[d]);
                continue;
            }
            long total = PREFIX + outBytes[d], first = Math.min(total, earlyChunk);
            out.set(ValueLayout.JAVA_LONG, outAt[d], outBytes[d]);
            transport.send(Transport.REST, Channel.PACKED, out, outAt[d], first, d);
            if (total > first) transport.send(Transport.REST, Channel.PACKED_REST, out, outAt[d] + first, total - first, d);
            wire.data(total > first ? 2 : 1, inlineOut[d], total - inlineOut[d]);
        }
        combiners.packed();
    }

    /** Sends every large put, in the order its header was packed (the receiver posts in that order). */
    void sendLarge(NodeRequests r) {
        inPlace.sending = 0;
        MemorySegment stage = heapLarge > 0 ? sendStaging.atLeast(heapLarge) : null;
        long staged = 0;
        for (int l = 0, t = r.processes(); l < t; l++) {
            RequestList q = r.requests(l);
            for (int i = 0; i < q.puts; i++) {
                int d = r.rankOf(q.putPid[i]);
                long size = q.putSize[i];
                if (!isLarge(d, size, q.putTag[i])) continue;
                MemorySegment src = q.putSource[i];
                boolean alive = src.scope().isAlive();
                // Freed memory is staged as zeros, in the room pack counted (memory freed since, by another thread, has none)
                if (src.isNative() && (alive || stage == null || staged + size > stage.byteSize())) {
                    long start = src.address() + q.putSrcOffset[i];
                    inPlace.addSending(start, start + size);
                    transport.send(Transport.REST, Channel.LARGE, src, q.putSrcOffset[i], size, d);
                } else {
                    if (alive) copier.copy(src, q.putSrcOffset[i], stage, staged, size);
                    else stage.asSlice(staged, size).fill((byte) 0); // freed before the sync: pack reported it
                    transport.send(Transport.REST, Channel.LARGE, stage, staged, size, d);
                    staged += size;
                }
                wire.data(1, size, 0);
            }
        }
    }

    /** Frees the staging buffer of large heap puts. */
    void close() { sendStaging.close(); }
}
