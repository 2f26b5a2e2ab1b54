package org.lpf4j.superstep;

import java.lang.foreign.MemorySegment;

/**
 * The buffer layout of an {@link Exchange}, described once: the native buffers of one sync's
 * streams and, per rank, how many bytes of which stream go where in them.
 *
 * <pre>
 *   packedOut   [len | stream to rank 0][len | stream to rank 1]...   at outAt[d]: the length (one long,
 *               {@link #PREFIX}), then outBytes[d] bytes; this rank's own part is its stream to itself
 *   packedIn    the streams from the other ranks: inBytes[s] bytes at inAt[s] (none from itself); sent
 *               early, the first chunk of each source's stream, in a slot of the transport's eager size
 *   packedLong  the streams sent early that did not fit their chunk (longIn[s]), each with its length in front
 *   replyOut    the reply stream to each requesting rank: replyOutBytes[s] bytes at replyOutAt[s]
 *               (its own replies included: they are read from here)
 *   replyIn     the reply stream from each other rank: replyInBytes[s] bytes at replyInAt[s]
 *   counts      the all-to-all of one long per pair: this rank's counts, then the received ones
 * </pre>
 *
 * The per-rank arrays are allocated once (one long or flag per rank each) and the buffers grow to
 * fit and are kept from sync to sync, so a sync allocates nothing unless a buffer grows. The
 * arrays are shared, not copied, by the classes of the exchange ({@link Packer} writes the counts
 * this rank sends and expects, {@link Exchange} the incoming counts, {@link Delivery} the replies
 * it sends). Used by the rank's exchanging thread only.
 */
final class ExchangeBuffers implements AutoCloseable {
    /** Every stream in the outgoing buffer is preceded by its length (one long): what a stream sent early starts with. */
    static final long PREFIX = 8;

    private final int me, ranks;
    final NativeBuffer counts = new NativeBuffer(), packedOut = new NativeBuffer(), packedIn = new NativeBuffer(),
            replyOut = new NativeBuffer(), replyIn = new NativeBuffer(), packedLong = new NativeBuffer();
    /** Per rank: the bytes of each stream and where it starts in its buffer. */
    final long[] outBytes, outAt, inBytes, inAt, replyInBytes, replyInAt, replyOutBytes, replyOutAt;
    /** Per source rank: whether its stream (sent early, longer than a chunk) is in {@link #packedLong}, not {@link #packedIn}. */
    final boolean[] longIn;
    /** {@link Packer}'s scratch while it packs: the write position in each destination's stream, and in each owner's reply stream. */
    final long[] cursor, replyCursor;
    /** Per destination rank: the put data in its packed stream (the rest of the stream is headers). */
    final long[] inlineOut;

    ExchangeBuffers(int me, int ranks) {
        this.me = me;
        this.ranks = ranks;
        outBytes = new long[ranks]; outAt = new long[ranks]; inBytes = new long[ranks]; inAt = new long[ranks];
        replyInBytes = new long[ranks]; replyInAt = new long[ranks]; replyOutBytes = new long[ranks];
        replyOutAt = new long[ranks]; cursor = new long[ranks]; replyCursor = new long[ranks];
        longIn = new boolean[ranks];
        inlineOut = new long[ranks];
    }

    /** Where each destination's stream goes in the outgoing buffer (after its length), which grows to fit. */
    void layOutOut() {
        long o = 0;
        for (int k = 0; k < ranks; k++) {
            outAt[k] = o;
            o += PREFIX + outBytes[k];
        }
        packedOut.atLeast(o);
    }

    /** Where each source's stream goes in the incoming buffer, when the counts came before the streams. */
    void layOutIn() {
        long i = 0;
        for (int k = 0; k < ranks; k++) {
            inAt[k] = i;
            longIn[k] = false;
            if (k != me) i += inBytes[k];
        }
        packedIn.atLeast(i);
    }

    void layOutReplies() {
        long r = 0;
        for (int k = 0; k < ranks; k++) {
            replyInAt[k] = r;
            if (k != me) r += replyInBytes[k];
        }
        replyIn.atLeast(r);
    }

    /** The packed stream from {@code s}: this rank's own part of the outgoing buffer when {@code s} is itself. */
    MemorySegment streamOf(int s) {
        return s == me ? packedOut.atLeast(0) : longIn[s] ? packedLong.atLeast(0) : packedIn.atLeast(0);
    }

    long streamAt(int s) {
        return s == me ? outAt[s] + PREFIX : inAt[s];
    }

    long inBytes(int s) {
        return s == me ? outBytes[s] : inBytes[s];
    }

    @Override
    public void close() {
        for (NativeBuffer b : new NativeBuffer[] {counts, packedOut, packedIn, replyOut, replyIn, packedLong}) b.close();
    }
}
