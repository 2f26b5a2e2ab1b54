package org.lpf4j.superstep;

import org.lpf4j.spi.kit.BulkCopy;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;
import org.lpf4j.spi.kit.WireCounts;
import org.lpf4j.superstep.Transport.Channel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.lpf4j.superstep.ExchangeBuffers.PREFIX;

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
 *       the payloads of small puts; a put of at least {@link Packer#LARGE} bytes to another rank
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
 * apply), large ones to native destinations not at all, others once, and a plain put to this rank
 * itself once, from its source when it is applied ({@link LocalPuts}). Allocates only when a buffer
 * grows or a combining operator is first defined.
 *
 * <p>This class runs the steps in their order and owns the meta-data (the counts, the round's
 * bits, the early receives); the buffers and their per-rank offsets are laid out by
 * {@link ExchangeBuffers}, the sending side is {@link Packer}, the receiving side {@link Delivery}.
 */
final class Exchange implements AutoCloseable {
    /**
     * A stream sent before the round goes as its first {@code earlyChunk} bytes (its length, then
     * the stream), received into a slot of this size per source, and the rest as a second message:
     * the transport's eager size ({@link Transport#eagerBytes()}), so that it arrives while the round runs.
     */
    private final long earlyChunk;

    private final Transport transport;
    /** Counts this rank's messages: the count exchanges (the streams, large puts and replies: {@link Packer}, {@link Delivery}). */
    private final WireCounts wire;
    private final int me, ranks;
    private final ExchangeBuffers buffers;
    private final NativeBuffer counts, packedIn, packedLong, replyIn;
    private final long[] outBytes, inBytes, inAt, replyInBytes, replyInAt;
    private final boolean[] longIn;
    private final Packer packer;
    private final Delivery delivery;

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
        this.me = me;
        this.ranks = ranks;
        buffers = new ExchangeBuffers(me, ranks);
        counts = buffers.counts; packedIn = buffers.packedIn; packedLong = buffers.packedLong; replyIn = buffers.replyIn;
        outBytes = buffers.outBytes; inBytes = buffers.inBytes; inAt = buffers.inAt;
        replyInBytes = buffers.replyInBytes; replyInAt = buffers.replyInAt; longIn = buffers.longIn;
        InPlaceAreas inPlace = new InPlaceAreas();
        LocalPuts local = new LocalPuts();
        packer = new Packer(transport, me, ranks, combiners, copier, wire, buffers, inPlace, local);
        delivery = new Delivery(transport, me, ranks, combiners, copier, wire, buffers, inPlace, local);
    }

    /**
     * {@link Packer#count}: the bytes this rank sends to and expects from each rank.
     *
     * @return the number of requests the rank's processes queued
     */
    int count(NodeRequests r) { return packer.count(r); }

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
        buffers.layOutOut();
        packer.pack(r, true);
    }

    /**
     * After a round whose bits say who sent streams early: receives them, then moves the large
     * puts and the gets' replies and writes nothing yet ({@link #applyPuts}, {@link #applyReplies}).
     *
     * @param sent whether this rank called {@link #sendEarly} in this sync
     * @return the first rule an incoming request broke at its destination (the sync must throw it), or null
     */
    RuntimeException runEarly(NodeRequests r, boolean sent, MemorySegment bits, long at) {
        if (!sent) buffers.layOutOut(); // nothing queued here: an empty stream of its own
        receiveEarly(bits, at);
        buffers.layOutReplies();
        postReplyReceives();
        packer.sendLarge(r);
        return serveAndPlace(r);
    }

    /**
     * The end of either way, once the streams are in and the large puts on their way: serves the
     * gets, places the puts, completes every transfer.
     *
     * @return the first failure of this sync: a put whose source could not be read, a rule a get or put broke, or null
     */
    private RuntimeException serveAndPlace(NodeRequests r) {
        RuntimeException broken = delivery.serveGets(r);
        RuntimeException misplaced = delivery.placePuts(r);
        transport.complete(Transport.REST);
        IllegalStateException packFailure = packer.failure();
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
        buffers.layOutOut();
        buffers.layOutIn();
        buffers.layOutReplies();
        postReceives();
        packer.pack(r, false);
        packer.sendLarge(r);
        transport.complete(Transport.EARLY);
        return serveAndPlace(r);
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

    /** {@link Delivery#applyPuts}: local process {@code local} writes the puts that address it, in order. */
    void applyPuts(int local, SlotRegister register) { delivery.applyPuts(local, register); }

    /** {@link Delivery#applyReplies}: the replies to the gets of {@code gets} go to their destinations. */
    void applyReplies(RequestList gets, NodeRequests r) { delivery.applyReplies(gets, r); }

    @Override
    public void close() {
        buffers.close();
        packer.close();
        delivery.close();
        transport.close();
    }
}
