package org.lpf4j.superstep;

import org.lpf4j.spi.kit.BulkCopy;

/**
 * How the protocol moves a section's meta-data and bytes, resolved once by the engine from its
 * parameters and carried by every context of its sections, so that nothing on the sync path
 * reads a parameter. Every rank of a section must use the same values (the engine's start-up
 * agreement compares them), except {@code copy}. Immutable.
 *
 * @param pairsInRoundUpTo sections of at most this many ranks send their streams before the
 *                         round, which then carries who sends to whom (p × p bits)
 * @param countExchange    how counts that do not travel in the round are exchanged: {@code auto},
 *                         {@code sparse} (a consensus among the senders) or {@code dense} (an all-to-all)
 * @param sparseFrom       the smallest section in which {@code auto} may take the sparse way
 * @param copy             how request bytes are copied in this JVM
 */
public record ProtocolSettings(int pairsInRoundUpTo, String countExchange, int sparseFrom, BulkCopy copy) {
    /**
     * Whether a superstep whose streams do not go out before the round exchanges its counts the
     * sparse way rather than by an all-to-all: {@code auto} in sections of at least
     * {@link #sparseFrom} ranks when every rank sends to at most a quarter of the others, which
     * the round's OR bounds for every rank alike.
     *
     * @param ranks     the section's ranks
     * @param maxDegree a bound on the largest number of other ranks any rank sends to
     * @return whether to take the sparse way
     */
    public boolean sparse(int ranks, int maxDegree) {
        return switch (countExchange) {
            case "sparse" -> true;
            case "dense" -> false;
            default -> ranks >= sparseFrom && 4L * maxDegree <= ranks;
        };
    }

    /**
     * @param ranks the section's ranks
     * @return whether a section of {@code ranks} sends its streams before the round, which carries who sends to whom
     */
    public boolean pairsInRound(int ranks) { return ranks > 1 && ranks <= pairsInRoundUpTo; }
}
