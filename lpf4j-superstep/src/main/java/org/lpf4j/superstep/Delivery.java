package org.lpf4j.superstep;

import org.lpf4j.MsgAttr;
import org.lpf4j.spi.kit.BulkCopy;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.WireCounts;
import org.lpf4j.superstep.Transport.Channel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.lpf4j.superstep.PackedHeader.DEFINE;
import static org.lpf4j.superstep.PackedHeader.GET;
import static org.lpf4j.superstep.PackedHeader.LENGTH;
import static org.lpf4j.superstep.PackedHeader.PUT_INLINE;
import static org.lpf4j.superstep.PackedHeader.PUT_LARGE;
import static org.lpf4j.superstep.PackedHeader.PUT_LOCAL;

/**
 * The receiving side of an {@link Exchange}, once the packed streams are in: serves the gets
 * addressed to this rank and sends the replies ({@link #serveGets}, before anything of the sync is
 * written), lists the incoming puts per local process and posts the receipt of the large ones
 * ({@link #placePuts}); then each local process writes its puts ({@link #applyPuts}) and its gets'
 * replies ({@link #applyReplies}). A request that breaks a rule at its destination is dropped and
 * reported, never thrown half-way: the other ranks wait for this rank's replies and receives.
 *
 * <p>Cost: O(incoming requests + ranks) per sync, each stream read twice by each of the first
 * two; a small payload is copied once (stream to destination), a large one straight into a native
 * destination that overlaps nothing else of the sync, else once from the staging buffer, a plain
 * put to this rank itself once (source to destination). Allocates
 * nothing unless a buffer grows, the number of local processes or of a process's arrivals grows,
 * or an operator definition arrives. {@link #serveGets} and {@link #placePuts} run on the rank's
 * exchanging thread, {@link #applyPuts} on the thread of the process it writes for.
 */
final class Delivery {
    private final Transport transport;
    /** Counts this rank's messages: each reply stream it sends. */
    private final WireCounts wire;
    private final CombinerTable combiners;
    private final BulkCopy copier;
    private final int me, ranks;
    private final ExchangeBuffers buffers;
    private final NativeBuffer replyOut, replyIn, staging = new NativeBuffer();
    private final long[] replyOutBytes, replyOutAt, replyInAt;
    /** The areas this sync sends from and receives into in place. */
    private final InPlaceAreas inPlace;
    /** The sources of this sync's plain puts to this rank itself, in its stream's order. */
    private final LocalPuts local;
    /** Per local process: the puts from other ranks (and its own to itself) it must write. */
    private Arrivals[] arrivals = {new Arrivals()};

    Delivery(Transport transport, int me, int ranks, CombinerTable combiners, BulkCopy copier, WireCounts wire,
             ExchangeBuffers buffers, InPlaceAreas inPlace, LocalPuts local) {
        this.transport = transport;
        this.wire = wire;
        this.combiners = combiners;
        this.copier = copier;
        this.me = me;
        this.ranks = ranks;
        this.buffers = buffers;
        this.inPlace = inPlace;
        this.local = local;
        replyOut = buffers.replyOut;
        replyIn = buffers.replyIn;
        replyOutBytes = buffers.replyOutBytes;
        replyOutAt = buffers.replyOutAt;
        replyInAt = buffers.replyInAt;
    }

    /**
     * Reads the operator definitions, then serves every get addressed to this rank from its
     * owner's memory (before any write of this sync: no put has been placed yet) and sends one
     * reply stream per requesting rank. A get past the end of its area gets zeros. An operator
     * that does not deserialize is reported, not thrown here: the others wait for this rank's
     * replies and receives, so the exchange completes first.
     *
     * @return the first rule a get broke or operator that failed, or null
     */
    RuntimeException serveGets(NodeRequests r) {
        RuntimeException broken = null;
        long total = 0;
        for (int s = 0; s < ranks; s++) {
            MemorySegment stream = buffers.streamOf(s);
            replyOutBytes[s] = 0;
            for (long h = buffers.streamAt(s), end = h + buffers.inBytes(s); h < end; h += PackedHeader.recordBytes(stream, h)) {
                int kind = PackedHeader.kind(stream, h);
                if (kind == GET) {
                    replyOutBytes[s] += PackedHeader.size(stream, h);
                } else if (kind == DEFINE) {
                    int n = (int) PackedHeader.size(stream, h);
                    byte[] def = new byte[n];
                    MemorySegment.copy(stream, ValueLayout.JAVA_BYTE, h + LENGTH, def, 0, n);
                    try {
                        combiners.define(s, PackedHeader.slot(stream, h), def);
                    } catch (RuntimeException e) {
                        // The exchange goes on (replies and large receives that others wait for); its puts are dropped below.
                        if (broken == null) broken = e;
                    }
                }
            }
            replyOutAt[s] = total;
            total += replyOutBytes[s];
        }
        MemorySegment replies = replyOut.atLeast(total);
        for (int s = 0; s < ranks; s++) {
            if (replyOutBytes[s] == 0) continue;
            MemorySegment stream = buffers.streamOf(s);
            long reply = replyOutAt[s];
            for (long h = buffers.streamAt(s), end = h + buffers.inBytes(s); h < end; h += PackedHeader.recordBytes(stream, h)) {
                if (PackedHeader.kind(stream, h) != GET) continue;
                long size = PackedHeader.size(stream, h);
                if (size == 0) continue;
                int owner = PackedHeader.targetLocal(stream, h), slot = PackedHeader.slot(stream, h);
                long offset = PackedHeader.offset(stream, h);
                MemorySegment src = r.register(owner).globalSegment(slot);
                if (!RequestChecks.remoteGetFits(src, offset, size)) {
                    if (broken == null) {
                        broken = RequestChecks.remoteGetTooFar(r.pidOf(s, PackedHeader.sourceLocal(stream, h)),
                                r.pidOf(me, owner), slot, offset, size, src);
                    }
                    replies.asSlice(reply, size).fill((byte) 0);
                } else {
                    try {
                        copier.copy(src, offset, replies, reply, size);
                    } catch (IllegalStateException e) { // its owner closed the memory's Arena: the exchange goes on
                        if (broken == null) {
                            broken = new IllegalStateException("get by pid " + r.pidOf(s, PackedHeader.sourceLocal(stream, h))
                                    + " from pid " + r.pidOf(me, owner) + " global#" + slot + " (offset=" + offset + ", size="
                                    + size + "): the owner closed the Arena of its memory before deregistering it", e);
                        }
                        replies.asSlice(reply, size).fill((byte) 0);
                    }
                }
                reply += size;
            }
            if (s != me) {
                transport.send(Transport.REST, Channel.REPLY, replies, replyOutAt[s], replyOutBytes[s], s);
                wire.data(1, replyOutBytes[s], 0);
            }
        }
        return broken;
    }

    /**
     * Lists every incoming put for the local process it addresses, and posts the receipt of every
     * large one: straight into the destination when that is safe, else into the staging buffer.
     *
     * @return the first rule a put broke at its destination, or null
     */
    RuntimeException placePuts(NodeRequests r) {
        RuntimeException broken = null;
        int t = r.processes();
        if (arrivals.length < t) {
            arrivals = Arrays.copyOf(arrivals, t);
            for (int l = 0; l < t; l++) if (arrivals[l] == null) arrivals[l] = new Arrivals();
        }
        for (int l = 0; l < t; l++) arrivals[l].count = 0;
        long stageTotal = 0;
        for (int s = 0; s < ranks; s++) {
            MemorySegment stream = buffers.streamOf(s);
            for (long h = buffers.streamAt(s), end = h + buffers.inBytes(s); h < end; h += PackedHeader.recordBytes(stream, h)) {
                if (PackedHeader.kind(stream, h) == PUT_LARGE) stageTotal += PackedHeader.size(stream, h);
            }
        }
        MemorySegment stage = staging.atLeast(stageTotal);
        inPlace.direct = 0;
        long staged = 0;
        for (int s = 0; s < ranks; s++) {
            MemorySegment stream = buffers.streamOf(s);
            for (long h = buffers.streamAt(s), end = h + buffers.inBytes(s); h < end; h += PackedHeader.recordBytes(stream, h)) {
                int kind = PackedHeader.kind(stream, h);
                if (kind != PUT_INLINE && kind != PUT_LARGE && kind != PUT_LOCAL) continue;
                int listed = kind == PUT_LOCAL ? local.take() : -1; // taken in stream order, whatever follows
                long size = PackedHeader.size(stream, h);
                int l = PackedHeader.targetLocal(stream, h), slot = PackedHeader.slot(stream, h);
                long offset = PackedHeader.offset(stream, h);
                MemorySegment dst = r.register(l).globalSegment(slot);
                int attr = PackedHeader.attr(stream, h);
                MsgAttr combining = attr >= 0 ? combiners.attr(s, attr) : null;
                // A zero-size put is a no-op whatever it names (as a zero-size get is): nothing to check.
                boolean fits = size == 0 || RequestChecks.remotePutFits(dst, offset, size);
                if (!fits && broken == null) {
                    broken = RequestChecks.remotePutTooFar(r.pidOf(s, PackedHeader.sourceLocal(stream, h)), r.pidOf(me, l), slot,
                            offset, size, dst);
                }
                // Memory whose Arena its owner closed is never written, nor handed to the transport to receive into.
                boolean alive = !fits || size == 0 || dst.scope().isAlive();
                if (!alive && broken == null) {
                    broken = new IllegalStateException("put from pid " + r.pidOf(s, PackedHeader.sourceLocal(stream, h)) + " to pid "
                            + r.pidOf(me, l) + " global#" + slot + " (offset=" + offset + ", size=" + size + "): pid "
                            + r.pidOf(me, l) + " closed the Arena of its destination memory before deregistering it");
                }
                if (attr >= 0 && combining == null && size > 0 && broken == null) { // dropped: said at every sync, not only the first
                    broken = new IllegalStateException("combining put from pid " + r.pidOf(s, PackedHeader.sourceLocal(stream, h))
                            + " to pid " + r.pidOf(me, l) + " global#" + slot + " (offset=" + offset + ", size=" + size
                            + ") dropped: " + combiners.whyUndefined(s, attr));
                }
                boolean valid = fits && alive && (attr < 0 || combining != null);
                long payload;
                if (kind == PUT_INLINE) {
                    payload = h + LENGTH;
                } else if (kind == PUT_LOCAL) {
                    payload = local.offset(listed);
                } else if (valid && size > 0 && dst.isNative() && inPlace.canReceiveDirectly(dst.address() + offset, size)) {
                    transport.receive(Transport.REST, Channel.LARGE, dst, offset, size, s);
                    continue; // written by the transport
                } else {
                    payload = staged;
                    transport.receive(Transport.REST, Channel.LARGE, stage, staged, size, s);
                    staged += size;
                }
                if (!valid || size == 0) continue; // a zero-size put is a no-op whatever it names
                Arrivals a = arrivals[l];
                int n = a.add();
                a.payload[n] = payload;
                a.fromRank[n] = kind == PUT_INLINE ? s : kind == PUT_LOCAL ? Arrivals.FROM_SOURCE : Arrivals.STAGED;
                a.source[n] = kind == PUT_LOCAL ? local.source(listed) : null;
                a.slot[n] = slot;
                a.dstOffset[n] = offset;
                a.size[n] = size;
                a.attr[n] = combining;
            }
        }
        local.clear(); // the arrivals hold what they need: no reference to user memory stays here
        return broken;
    }

    /**
     * Writes the puts from other ranks (and, for an engine with one process per rank, from itself)
     * that address local process {@code local}, in order.
     *
     * @throws IllegalStateException after writing the others, if the memory a put to itself reads
     *         was freed during the sync (zeros were written in its place)
     */
    void applyPuts(int local, SlotRegister register) {
        if (local >= arrivals.length) return;
        Arrivals a = arrivals[local];
        MemorySegment stage = staging.atLeast(0);
        IllegalStateException failed = null;
        for (int n = 0; n < a.count; n++) {
            int fromRank = a.fromRank[n];
            MemorySegment from = fromRank == Arrivals.FROM_SOURCE ? a.source[n] : fromRank == Arrivals.STAGED ? stage
                    : buffers.streamOf(fromRank);
            a.source[n] = null;
            MemorySegment dst = register.globalSegment(a.slot[n]);
            if (from == null) { // a put to itself whose source was freed: the packer reported it
                dst.asSlice(a.dstOffset[n], a.size[n]).fill((byte) 0);
            } else if (a.attr[n] != null) {
                RequestChecks.combine(a.attr[n], from, a.payload[n], dst, a.dstOffset[n], a.size[n]);
                a.attr[n] = null;
            } else {
                try {
                    copier.copy(from, a.payload[n], dst, a.dstOffset[n], a.size[n]);
                } catch (IllegalStateException e) {
                    if (fromRank != Arrivals.FROM_SOURCE) throw e;
                    // a put to itself whose source's Arena was closed during the sync: the others are written first
                    dst.asSlice(a.dstOffset[n], a.size[n]).fill((byte) 0);
                    if (failed == null) {
                        failed = new IllegalStateException("put to itself (global#" + a.slot[n] + ", offset=" + a.dstOffset[n]
                                + ", size=" + a.size[n] + "): the Arena of its source memory was closed during the sync", e);
                    }
                }
            }
        }
        a.count = 0;
        if (failed != null) throw failed;
    }

    /**
     * Copies the replies to the gets of {@code gets} (local process {@code local}'s list) to their destinations.
     *
     * @throws IllegalStateException after writing the others, if the destination memory of a get
     *         was freed (its Arena closed) before or during the sync
     */
    void applyReplies(RequestList gets, NodeRequests r) {
        MemorySegment remote = replyIn.atLeast(0), own = replyOut.atLeast(0);
        IllegalStateException failed = null;
        for (int i = 0; i < gets.gets; i++) {
            long size = gets.getSize[i];
            if (size == 0) continue;
            int s = r.rankOf(gets.getPid[i]);
            MemorySegment from = s == me ? own : remote;
            long at = (s == me ? replyOutAt[s] : replyInAt[s]) + gets.getTag[i];
            try {
                copier.copy(from, at, gets.getDestination[i], gets.getDstOffset[i], size);
            } catch (IllegalStateException e) { // the requester closed its destination's Arena: the other gets are written
                if (failed == null) {
                    failed = new IllegalStateException("get from pid " + gets.getPid[i] + " global#" + gets.getSlot[i]
                            + " (offset=" + gets.getSrcOffset[i] + ", size=" + size + ", dstOffset=" + gets.getDstOffset[i]
                            + "): the Arena of its destination memory was closed before the sync wrote it", e);
                }
            }
        }
        if (failed != null) throw failed;
    }

    /** Frees the staging buffer of large puts. */
    void close() { staging.close(); }
}
