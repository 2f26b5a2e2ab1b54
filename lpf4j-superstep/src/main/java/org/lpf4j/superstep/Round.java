package org.lpf4j.superstep;

import org.lpf4j.spi.kit.WireCounts;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The round of a {@link SuperstepContext}: one allreduce (OR) of a word every process contributes
 * (its flags: {@link #HAS_MESSAGES}, {@link #ENDING}, {@link #IN_SYNC}, {@link #IN_REHOOK}, and a
 * bound on its out-degree, {@link #degreeBit}) and, in a section small enough
 * ({@link ProtocolSettings#pairsInRound}), the p × p bits of who sends streams to whom, so that
 * the streams sent before the round ({@link Exchange#sendEarly}) can be received after it. Every
 * process passes the transport the same number of longs in every round.
 *
 * <p>Cost: one allreduce of 1 + ⌈p²/64⌉ longs when the round carries the bits, else of one long;
 * allocates nothing (its buffer is sized once, at construction). Used by its process's thread only.
 */
final class Round implements AutoCloseable {
    /** Bits of the word every process contributes to a round. */
    static final long HAS_MESSAGES = 1, ENDING = 2, IN_SYNC = 4, IN_REHOOK = 8;
    /** The first bit of the round's word that carries a process's out-degree, as a power of two. */
    private static final int DEGREE_SHIFT = 16;

    private final Transport transport;
    private final WireCounts counts;
    private final Exchange exchange;
    private final int nprocs;
    /** Whether the section is small enough to send its streams before the round, which carries who sends to whom. */
    private final boolean pairsFit;
    /** The round's longs ({@link #roundWords}), sent, then received. */
    private final NativeBuffer carried = new NativeBuffer();

    /**
     * @param counts   where the round is counted (a collective)
     * @param exchange the exchange whose streams the round's bits describe
     * @param pairsFit whether the round carries who sends to whom
     */
    Round(Transport transport, WireCounts counts, Exchange exchange, int nprocs, boolean pairsFit) {
        this.transport = transport;
        this.counts = counts;
        this.exchange = exchange;
        this.nprocs = nprocs;
        this.pairsFit = pairsFit;
        this.carried.atLeast(roundBytes()); // zeroed, and no allocation at the first sync
    }

    /** @return whether the round carries who sends to whom (the streams are then sent before it) */
    boolean pairsFit() { return pairsFit; }

    /** @return the longs of a round: the word, and the p × p bits of who sends to whom when the round carries them */
    private int roundWords() { return 1 + (pairsFit ? Exchange.pairWords(nprocs) : 0); }

    private long roundBytes() { return 16L * roundWords(); }

    /** @return where the received round's bits of who sends to whom start in {@link #carried} */
    private long pairsAt() { return 8L * roundWords() + 8; }

    /**
     * After a round that ends the section (someone ended or rehooks): takes in the streams sent
     * before it, so that every process's sends complete. Every process makes such a round and
     * then this call.
     */
    void drainEarly() {
        if (pairsFit) exchange.drainEarly(carried.atLeast(0), pairsAt());
    }

    /** After a round with messages that carried who sends to whom: {@link Exchange#runEarly} with the round's bits. */
    RuntimeException runEarly(NodeRequests requests, boolean sent) {
        return exchange.runEarly(requests, sent, carried.atLeast(0), pairsAt());
    }

    /**
     * @return the bit that says "I send to at most 2^b - 1 other processes" ({@code b} the bit
     *         length of {@code destinations}), so that the OR of the round gives every process a
     *         bound on the largest out-degree; 0 for none
     */
    static long degreeBit(int destinations) {
        return destinations == 0 ? 0 : 1L << (DEGREE_SHIFT + 32 - Integer.numberOfLeadingZeros(destinations));
    }

    /** @return a bound on the largest number of other processes any process sends to, from the round's OR */
    static int maxDegree(long all) {
        long bits = all >>> DEGREE_SHIFT;
        return bits == 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, (1L << (63 - Long.numberOfLeadingZeros(bits))) - 1);
    }

    long round(long mine) { return round(mine, false); }

    /**
     * One round: the OR of every process's word. When the round carries who sends to whom, this
     * process's row of the bits names the processes it sent streams to if {@code sent} (a sync
     * after {@link Exchange#sendEarly}), else none (a rehook or end round, or nothing queued), so
     * every round passes the transport the same count.
     */
    long round(long mine, boolean sent) {
        int n = roundWords(); // sent at 0, received at 8n
        MemorySegment buf = carried.atLeast(0);
        buf.set(ValueLayout.JAVA_LONG, 0, mine);
        if (pairsFit) exchange.writePairs(buf, 8, sent);
        counts.collective();
        transport.allreduce(buf, n, Transport.Reduction.OR);
        return buf.get(ValueLayout.JAVA_LONG, 8L * n);
    }

    @Override
    public void close() { carried.close(); }
}
