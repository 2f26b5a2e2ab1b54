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
import static org.lpf4j.superstep.PackedHeader.pad;

/**
 * The superstep exchange between JVMs, written once over a {@link Transport}: a sync of a
 * multi-JVM engine runs it for its one process per rank, the hybrid engine's node-level sync for
 * all the threads of a node
 * ({@link NodeRequests} says how pids map to ranks and local processes). C LPF's {@code mpimsg}
 * design:
 *
 * <ol>
 *   <li>{@link #count}: the packed bytes this rank sends each rank (headers, inline payloads,
 *       operator definitions), and the reply bytes it expects. In a small section
 *       ({@link ProtocolSettings#pairsInRound}) nobody exchanges these counts: each stream is sent
 *       before the sync's allreduce with its length in front ({@link #sendEarly}), the allreduce
 *       carries only who sends to whom, and {@link #runEarly} receives. Otherwise
 *       {@link #run(NodeRequests, boolean)} exchanges the counts after the allreduce: with a
 *       nonblocking consensus among the ranks that send (a sparse superstep: O(destinations +
 *       log p) messages per rank), or an all-to-all of one long per pair (a dense one).</li>
 *   <li>One packed stream per pair of ranks ({@link PackedHeader}): every request's header and
 *       the payloads of small puts; a put of at least {@link #LARGE} bytes to another rank
 *       travels as a message of its own, from the source memory in place when it is native
 *       (heap sources are copied once into a staging buffer).</li>
 *   <li>Gets addressed to this rank are served from the owners' memory <em>before anything is
 *       written in this sync</em>, and one reply stream per requesting rank goes back.</li>
 *   <li>A large put is received straight into its destination if that memory is native and the
 *       area overlaps no other such receive of this sync and no area this rank still sends from;
 *       everything else is staged and written afterwards by {@link #applyPuts}.</li>
 * </ol>
 *
 * <p><b>Write conflicts resolve as a serialisation</b>: every write into a process's memory is
 * made by that process ({@link #applyPuts} on its own thread) in a fixed order (by source rank,
 * then in the order the source packed its requests), after the direct receives of the sync;
 * the writes of its gets follow ({@link #applyReplies}).
 *
 * <p>Costs per sync with messages: the meta-data (nothing beyond the allreduce in a small
 * section, else one all-to-all or, in a sparse superstep, a consensus), at most one packed stream per pair of ranks and one reply
 * stream per pair with gets, one message per large put; small payloads are copied twice (pack,
 * apply), large ones to native destinations not at all, others once. Allocates only when a buffer
 * grows or a combining operator is first defined.
 */
final class Exchange implements AutoCloseable {
    /** Payloads of at least this many bytes to another rank travel as their own message. */
    static final long LARGE = 16 * 1024;
    /**
     * A stream sent before the round goes as its first {@code earlyChunk} bytes (its length, then
     * the stream), received into a slot of this size per source, and the rest as a second message:
     * the transport's eager size ({@link Transport#eagerBytes()}), so that it arrives while the round runs.
     */
    private final long earlyChunk;
    /** Every stream in the outgoing buffer is preceded by its length (one long): what a stream sent early starts with. */
    private static final long PREFIX = 8;

    private final Transport transport;
    /** Counts this rank's messages: each stream, large put and reply stream it sends, and the count exchanges. */
    private final WireCounts wire;
    private final CombinerTable combiners;
    private final BulkCopy copier;
    private final int me, ranks;
    private final int[] progress;
    private final NativeBuffer counts = new NativeBuffer(), packedOut = new NativeBuffer(), packedIn = new NativeBuffer(),
            replyOut = new NativeBuffer(), replyIn = new NativeBuffer(), staging = new NativeBuffer(),
            sendStaging = new NativeBuffer(), packedLong = new NativeBuffer();
    /** Per source rank: whether its stream (sent early, longer than a chunk) is in {@link #packedLong}, not {@link #packedIn}. */
    private final boolean[] longIn;
    /** Bytes of large puts from heap memory that {@link #sendLarge} stages (counted by {@link #pack}). */
    private long heapLarge;
    /** The first put whose source {@link #pack} could not read (its memory was freed), or null. */
    private IllegalStateException packFailure;
    /** Per destination rank: the put data in its packed stream (the rest of the stream is headers), for {@link #wire}. */
    private final long[] inlineOut;
    private final long[] outBytes, outAt, inBytes, inAt, replyInBytes, replyInAt, replyOutBytes, replyOutAt, cursor;
    /** The areas this sync sends from and receives into in place. */
    private final InPlaceAreas inPlace = new InPlaceAreas();
    /** Per local process: the puts from other ranks it must write. */
    private Arrivals[] arrivals = {new Arrivals()};

    /**
     * @param me    this rank
     * @param ranks the ranks of the section
     * @param copier how payloads are copied
     * @param wire   where the messages this rank sends are counted (the transport's counts)
     */
    Exchange(Transport transport, int me, int ranks, CombinerTable combiners, BulkCopy copier, WireCounts wire) {
        this.transport = transport;
        this.wire = wire;
        this.earlyChunk = transport.eagerBytes();
        this.copier = copier;
        this.combiners = combiners;
        this.me = me;
        this.ranks = ranks;
        this.progress = new int[ranks];
        outBytes = new long[ranks]; outAt = new long[ranks]; inBytes = new long[ranks]; inAt = new long[ranks];
        replyInBytes = new long[ranks]; replyInAt = new long[ranks]; replyOutBytes = new long[ranks];
        replyOutAt = new long[ranks]; cursor = new long[ranks];
        longIn = new boolean[ranks];
        inlineOut = new long[ranks];
    }

    /** Combining puts always travel inline: they are applied by copying through the operator anyway. */
    private boolean isLarge(int rank, long size, int attr) { return rank != me && size >= LARGE && attr < 0; }

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
        combiners.progressInto(progress);
        int n = 0;
        for (int l = 0, t = r.processes(); l < t; l++) {
            RequestList q = r.requests(l);
            n += q.count();
            for (int i = 0; i < q.puts; i++) {
                int d = r.rankOf(q.putPid[i]);
                int attr = q.putAttr[i] == null ? -1 : q.putTag[i] >= 0 ? q.putTag[i] : combiners.idOf(q.putAttr[i]);
                q.putTag[i] = attr;
                if (attr >= progress[d]) {
                    for (int j = progress[d]; j <= attr; j++) outBytes[d] += LENGTH + pad(combiners.definition(j).length);
                    progress[d] = attr + 1;
                }
                long size = q.putSize[i];
                outBytes[d] += isLarge(d, size, attr) ? LENGTH : LENGTH + pad(size);
            }
            for (int i = 0; i < q.gets; i++) {
                int s = r.rankOf(q.getPid[i]);
                outBytes[s] += LENGTH;
                replyInBytes[s] += q.getSize[i];
            }
        }
        return n;
    }

    /** @return the packed bytes this rank sends to {@code rank} in this sync (after {@link #count}) */
    long outBytes(int rank) { return outBytes[rank]; }

    /** @return the transfers posted and not completed: none between syncs, unless a sync failed half-way */
    int pendingTransfers() { return transport.pending(); }

    /** @return the ranks other than this one that this rank sends packed bytes to in this sync (after {@link #count}) */
    int destinations() {
        int n = 0;
        for (int d = 0; d < ranks; d++) if (d != me && outBytes[d] > 0) n++;
        return n;
    }

    /**
     * Moves the requests {@link #count} counted, the counts travelling in a round of their own:
     * only to the ranks this one sends to when {@code sparse} (every rank of the section must pass
     * the same), else in an all-to-all over every pair.
     *
     * @return the first rule an incoming request broke at its destination (the sync must throw it), or null
     */
    RuntimeException run(NodeRequests r, boolean sparse) {
        wire.collective();
        if (sparse) {
            transport.exchangeNonzero(outBytes, inBytes);
            return move(r);
        }
        MemorySegment c = counts.atLeast(16L * ranks);
        for (int d = 0; d < ranks; d++) c.setAtIndex(ValueLayout.JAVA_LONG, d, outBytes[d]);
        transport.alltoallLongs(c, 8L * ranks);
        for (int s = 0; s < ranks; s++) inBytes[s] = c.getAtIndex(ValueLayout.JAVA_LONG, ranks + s);
        return move(r);
    }

    // ---- the early way: streams sent before the round, which carries who sends to whom ----

    /** @return the longs of the p × p bits "rank s sends to rank d" (bit s·p + d) */
    static int pairWords(int ranks) { return (int) (((long) ranks * ranks + 63) >>> 6); }

    /** @return whether the bits at {@code at} of {@code bits} say that rank {@code s} sends to rank {@code d} */
    static boolean sends(MemorySegment bits, long at, int ranks, int s, int d) {
        long i = (long) s * ranks + d;
        return (bits.get(ValueLayout.JAVA_LONG, at + 8 * (i >>> 6)) & (1L << i)) != 0;
    }

    /**
     * Writes this rank's contribution to the round's bits at {@code at}: its row (the ranks it
     * sends a stream to, after {@link #count}) if {@code sending}, zeros everywhere else.
     */
    void writePairs(MemorySegment bits, long at, boolean sending) {
        for (int w = 0, n = pairWords(ranks); w < n; w++) bits.set(ValueLayout.JAVA_LONG, at + 8L * w, 0L); // no slice: no allocation
        if (!sending) return;
        for (int d = 0; d < ranks; d++) {
            if (d == me || outBytes[d] == 0) continue;
            long i = (long) me * ranks + d;
            long word = at + 8 * (i >>> 6);
            bits.set(ValueLayout.JAVA_LONG, word, bits.get(ValueLayout.JAVA_LONG, word) | (1L << i));
        }
    }

    /**
     * Before the round: packs the requests {@link #count} counted and sends each stream to its
     * rank (its first {@code earlyChunk} bytes, then the rest); they complete with the exchange
     * ({@link #runEarly}) or the drain ({@link #drainEarly}) that must follow the round.
     */
    void sendEarly(NodeRequests r) {
        layOutOut();
        pack(r, true);
    }

    /**
     * After a round whose bits say who sent streams early: receives them, then moves the large
     * puts and the gets' replies and writes nothing yet ({@link #applyPuts}, {@link #applyReplies}).
     *
     * @param sent whether this rank called {@link #sendEarly} in this sync
     * @return the first rule an incoming request broke at its destination (the sync must throw it), or null
     */
    RuntimeException runEarly(NodeRequests r, boolean sent, MemorySegment bits, long at) {
        if (!sent) layOutOut(); // nothing queued here: an empty stream of its own
        receiveEarly(bits, at);
        layOutReplies();
        postReplyReceives();
        sendLarge(r);
        return serveAndPlace(r);
    }

    /**
     * The end of either way, once the streams are in and the large puts on their way: serves the
     * gets, places the puts, completes every transfer.
     *
     * @return the first failure of this sync: a put whose source could not be read, a rule a get or put broke, or null
     */
    private RuntimeException serveAndPlace(NodeRequests r) {
        RuntimeException broken = serveGets(r);
        RuntimeException misplaced = placePuts(r);
        transport.complete(Transport.REST);
        return packFailure != null ? packFailure : broken != null ? broken : misplaced;
    }

    /**
     * After a round that ends the section instead of a sync: takes in (and drops) the streams sent
     * to this rank before it, and completes this rank's own sends, so that no transfer is left
     * behind. Every rank of the section must call it after such a round.
     */
    void drainEarly(MemorySegment bits, long at) {
        receiveEarly(bits, at);
        transport.complete(Transport.REST);
    }

    /** Receives the streams the bits say were sent to this rank: first chunks, then the rest of the long ones. */
    private void receiveEarly(MemorySegment bits, long at) {
        MemorySegment chunks = packedIn.atLeast(earlyChunk * ranks);
        boolean any = false;
        for (int s = 0; s < ranks; s++) {
            inBytes[s] = 0;
            longIn[s] = false;
            if (s == me || !sends(bits, at, ranks, s, me)) continue;
            transport.receive(Transport.EARLY, Channel.PACKED, chunks, earlyChunk * s, earlyChunk, s);
            any = true;
        }
        if (!any) return;
        transport.complete(Transport.EARLY);
        long longTotal = 0;
        for (int s = 0; s < ranks; s++) {
            if (s == me || !sends(bits, at, ranks, s, me)) continue;
            inBytes[s] = chunks.get(ValueLayout.JAVA_LONG, earlyChunk * s);
            inAt[s] = earlyChunk * s + PREFIX;
            if (PREFIX + inBytes[s] > earlyChunk) longTotal += PREFIX + inBytes[s];
        }
        if (longTotal == 0) return;
        MemorySegment longs = packedLong.atLeast(longTotal);
        long o = 0;
        for (int s = 0; s < ranks; s++) {
            if (s == me || PREFIX + inBytes[s] <= earlyChunk) continue;
            MemorySegment.copy(chunks, earlyChunk * s, longs, o, earlyChunk);
            transport.receive(Transport.EARLY, Channel.PACKED_REST, longs, o + earlyChunk, PREFIX + inBytes[s] - earlyChunk, s);
            inAt[s] = o + PREFIX;
            longIn[s] = true;
            o += PREFIX + inBytes[s];
        }
        transport.complete(Transport.EARLY);
    }

    // ---- the way after the round ----

    private RuntimeException move(NodeRequests r) {
        layOutOut();
        layOutIn();
        layOutReplies();
        postReceives();
        pack(r, false);
        sendLarge(r);
        transport.complete(Transport.EARLY);
        return serveAndPlace(r);
    }

    /** Where each destination's stream goes in the outgoing buffer (after its length), which grows to fit. */
    private void layOutOut() {
        long o = 0;
        for (int k = 0; k < ranks; k++) {
            outAt[k] = o;
            o += PREFIX + outBytes[k];
        }
        packedOut.atLeast(o);
    }

    /** Where each source's stream goes in the incoming buffer, when the counts came before the streams. */
    private void layOutIn() {
        long i = 0;
        for (int k = 0; k < ranks; k++) {
            inAt[k] = i;
            longIn[k] = false;
            if (k != me) i += inBytes[k];
        }
        packedIn.atLeast(i);
    }

    private void layOutReplies() {
        long r = 0;
        for (int k = 0; k < ranks; k++) {
            replyInAt[k] = r;
            if (k != me) r += replyInBytes[k];
        }
        replyIn.atLeast(r);
    }

    private void postReceives() {
        MemorySegment in = packedIn.atLeast(0);
        for (int s = 0; s < ranks; s++) {
            if (s != me && inBytes[s] > 0) transport.receive(Transport.EARLY, Channel.PACKED, in, inAt[s], inBytes[s], s);
        }
        postReplyReceives();
    }

    private void postReplyReceives() {
        MemorySegment replies = replyIn.atLeast(0);
        for (int s = 0; s < ranks; s++) {
            if (s != me && replyInBytes[s] > 0) transport.receive(Transport.REST, Channel.REPLY, replies, replyInAt[s], replyInBytes[s], s);
        }
    }

    /**
     * Packs every local process's requests by destination rank (local process by local process,
     * each in its queue order) and sends the streams: {@code early}, each with its length in
     * front and split after {@code earlyChunk} bytes, else as they are. Each get's
     * {@code getTag} becomes where its reply starts in the reply stream of its owner's rank.
     */
    private void pack(NodeRequests r, boolean early) {
        MemorySegment out = packedOut.atLeast(0);
        long[] at = cursor, replyAt = replyOutAt; // replyOutAt: scratch until serveGets
        for (int d = 0; d < ranks; d++) at[d] = outAt[d] + PREFIX;
        Arrays.fill(replyAt, 0);
        Arrays.fill(inlineOut, 0);
        heapLarge = 0;
        for (int l = 0, t = r.processes(); l < t; l++) {
            RequestList q = r.requests(l);
            for (int i = 0; i < q.puts; i++) {
                int d = r.rankOf(q.putPid[i]);
                long size = q.putSize[i];
                int attr = q.putTag[i];
                if (attr >= combiners.knownBy(d)) {
                    for (int j = combiners.knownBy(d); j <= attr; j++) {
                        byte[] def = combiners.definition(j);
                        PackedHeader.write(out, at[d], DEFINE, -1, l, 0, j, 0, def.length);
                        MemorySegment.copy(def, 0, out, ValueLayout.JAVA_BYTE, at[d] + LENGTH, def.length);
                        at[d] += LENGTH + pad(def.length);
                    }
                    combiners.shipped(d, attr + 1);
                }
                boolean large = isLarge(d, size, attr);
                PackedHeader.write(out, at[d], large ? PUT_LARGE : PUT_INLINE, attr, l, r.localOf(q.putPid[i]), q.putSlot[i],
                        q.putDstOffset[i], size);
                at[d] += LENGTH;
                if (large) {
                    if (!q.putSource[i].isNative()) heapLarge += size;
                } else {
                    inlineOut[d] += size;
                    try {
                        copier.copy(q.putSource[i], q.putSrcOffset[i], out, at[d], size);
                    } catch (IllegalStateException e) { // its Arena was closed: the sync goes on, and throws this at its end
                        if (packFailure == null) {
                            packFailure = new IllegalStateException("put from pid " + r.pidOf(me, l) + " to pid " + q.putPid[i]
                                    + " (size=" + size + "): pid " + r.pidOf(me, l) + " closed the Arena of its source memory"
                                    + " before the sync", e);
                        }
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
    }

    /** Sends every large put, in the order its header was packed (the receiver posts in that order). */
    private void sendLarge(NodeRequests r) {
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
                if (src.isNative()) {
                    long start = src.address() + q.putSrcOffset[i];
                    inPlace.addSending(start, start + size);
                    transport.send(Transport.REST, Channel.LARGE, src, q.putSrcOffset[i], size, d);
                } else {
                    copier.copy(src, q.putSrcOffset[i], stage, staged, size);
                    transport.send(Transport.REST, Channel.LARGE, stage, staged, size, d);
                    staged += size;
                }
                wire.data(1, size, 0);
            }
        }
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
    private RuntimeException serveGets(NodeRequests r) {
        RuntimeException broken = null;
        long total = 0;
        for (int s = 0; s < ranks; s++) {
            MemorySegment stream = streamOf(s);
            replyOutBytes[s] = 0;
            for (long h = streamAt(s), end = h + inBytes(s); h < end; h += PackedHeader.recordBytes(stream, h)) {
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
            MemorySegment stream = streamOf(s);
            long reply = replyOutAt[s];
            for (long h = streamAt(s), end = h + inBytes(s); h < end; h += PackedHeader.recordBytes(stream, h)) {
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
    private RuntimeException placePuts(NodeRequests r) {
        RuntimeException broken = null;
        int t = r.processes();
        if (arrivals.length < t) {
            arrivals = Arrays.copyOf(arrivals, t);
            for (int l = 0; l < t; l++) if (arrivals[l] == null) arrivals[l] = new Arrivals();
        }
        for (int l = 0; l < t; l++) arrivals[l].count = 0;
        long stageTotal = 0;
        for (int s = 0; s < ranks; s++) {
            MemorySegment stream = streamOf(s);
            for (long h = streamAt(s), end = h + inBytes(s); h < end; h += PackedHeader.recordBytes(stream, h)) {
                if (PackedHeader.kind(stream, h) == PUT_LARGE) stageTotal += PackedHeader.size(stream, h);
            }
        }
        MemorySegment stage = staging.atLeast(stageTotal);
        inPlace.direct = 0;
        long staged = 0;
        for (int s = 0; s < ranks; s++) {
            MemorySegment stream = streamOf(s);
            for (long h = streamAt(s), end = h + inBytes(s); h < end; h += PackedHeader.recordBytes(stream, h)) {
                int kind = PackedHeader.kind(stream, h);
                if (kind != PUT_INLINE && kind != PUT_LARGE) continue;
                long size = PackedHeader.size(stream, h);
                int l = PackedHeader.targetLocal(stream, h), slot = PackedHeader.slot(stream, h);
                long offset = PackedHeader.offset(stream, h);
                MemorySegment dst = r.register(l).globalSegment(slot);
                int attr = PackedHeader.attr(stream, h);
                MsgAttr combining = attr >= 0 ? combiners.attr(s, attr) : null;
                boolean fits = RequestChecks.remotePutFits(dst, offset, size);
                if (!fits && broken == null) {
                    broken = RequestChecks.remotePutTooFar(r.pidOf(s, PackedHeader.sourceLocal(stream, h)), r.pidOf(me, l), slot,
                            offset, size, dst);
                }
                boolean valid = fits && (attr < 0 || combining != null); // an operator that did not arrive: serveGets reported it
                long payload;
                if (kind == PUT_INLINE) {
                    payload = h + LENGTH;
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
                a.fromRank[n] = kind == PUT_INLINE ? s : -1;
                a.slot[n] = slot;
                a.dstOffset[n] = offset;
                a.size[n] = size;
                a.attr[n] = combining;
            }
        }
        return broken;
    }

    /** Writes the puts from other ranks (and, for an engine with one process per rank, from itself) that address local process {@code local}, in order. */
    void applyPuts(int local, SlotRegister register) {
        if (local >= arrivals.length) return;
        Arrivals a = arrivals[local];
        MemorySegment stage = staging.atLeast(0);
        for (int n = 0; n < a.count; n++) {
            MemorySegment from = a.fromRank[n] < 0 ? stage : streamOf(a.fromRank[n]);
            MemorySegment dst = register.globalSegment(a.slot[n]);
            if (a.attr[n] != null) {
                RequestChecks.combine(a.attr[n], from, a.payload[n], dst, a.dstOffset[n], a.size[n]);
                a.attr[n] = null;
            } else {
                copier.copy(from, a.payload[n], dst, a.dstOffset[n], a.size[n]);
            }
        }
        a.count = 0;
    }

    /** Copies the replies to the gets of {@code gets} (local process {@code local}'s list) to their destinations. */
    void applyReplies(RequestList gets, NodeRequests r) {
        MemorySegment remote = replyIn.atLeast(0), own = replyOut.atLeast(0);
        for (int i = 0; i < gets.gets; i++) {
            long size = gets.getSize[i];
            if (size == 0) continue;
            int s = r.rankOf(gets.getPid[i]);
            MemorySegment from = s == me ? own : remote;
            long at = (s == me ? replyOutAt[s] : replyInAt[s]) + gets.getTag[i];
            copier.copy(from, at, gets.getDestination[i], gets.getDstOffset[i], size);
        }
    }

    /** The packed stream from {@code s}: this rank's own part of the outgoing buffer when {@code s} is itself. */
    private MemorySegment streamOf(int s) {
        return s == me ? packedOut.atLeast(0) : longIn[s] ? packedLong.atLeast(0) : packedIn.atLeast(0);
    }

    private long streamAt(int s) {
        return s == me ? outAt[s] + PREFIX : inAt[s];
    }

    private long inBytes(int s) {
        return s == me ? outBytes[s] : inBytes[s];
    }

    @Override
    public void close() {
        for (NativeBuffer b : new NativeBuffer[] {counts, packedOut, packedIn, replyOut, replyIn, staging, sendStaging, packedLong}) b.close();
        transport.close();
    }
}
