package org.lpf4j.engine.mpi;

import org.lpf4j.spi.kit.BulkCopy;

/**
 * The MPI engine's settings for its sections, resolved once from the parameters (when the
 * runtime starts for {@code Lpf.root()}'s sections, at {@code hook} for hooked ones) and carried
 * by every context of those sections, so that nothing on the sync path reads a parameter. Every
 * rank of a job must resolve the same values (the start-up agreement compares
 * {@link #agreementText()}); a hook is the program's own affair. Immutable.
 *
 * @param pairsInRoundUpTo  sections of at most this many processes send their streams before the
 *                          sync's allreduce, which carries who sends to whom ({@link MpiEngine#PAIRS_IN_ROUND_UP_TO};
 *                          the protocol's rules for these three are {@link org.lpf4j.superstep.ProtocolSettings}'s)
 * @param probeNanos        the time budget of one probe measurement ({@link MpiEngine#PROBE_MILLIS})
 * @param countExchange     how counts that do not travel in the round are exchanged ({@link MpiEngine#COUNT_EXCHANGE})
 * @param sparseFrom        the smallest section in which {@code auto} may take the sparse way ({@link MpiEngine#SPARSE_FROM})
 * @param syncTimeoutMillis the deadline on the wait in a sync, 0 for none ({@link MpiEngine#SYNC_TIMEOUT})
 * @param copy              how the exchange copies request bytes in this JVM ({@code lpf.copy}; ranks may differ)
 */
record MpiSettings(int pairsInRoundUpTo, long probeNanos, String countExchange, int sparseFrom, int syncTimeoutMillis,
                   BulkCopy copy) {
    /** Settings that copy with {@code lpf.copy}'s current value (tests). */
    MpiSettings(int pairsInRoundUpTo, long probeNanos, String countExchange, int sparseFrom, int syncTimeoutMillis) {
        this(pairsInRoundUpTo, probeNanos, countExchange, sparseFrom, syncTimeoutMillis, BulkCopy.resolve());
    }

    /** @return the current values of the engine's parameters */
    static MpiSettings resolve() {
        return new MpiSettings(MpiEngine.PAIRS_IN_ROUND_UP_TO.get(), MpiEngine.PROBE_MILLIS.get() * 1_000_000L,
                MpiEngine.COUNT_EXCHANGE.get(), MpiEngine.SPARSE_FROM.get(), MpiEngine.SYNC_TIMEOUT.get(),
                BulkCopy.resolve());
    }

    /** @return the protocol's part of these settings, for the sections' contexts */
    org.lpf4j.superstep.ProtocolSettings protocol() {
        return new org.lpf4j.superstep.ProtocolSettings(pairsInRoundUpTo, countExchange, sparseFrom, copy);
    }

    /** @return the settings the ranks of one job must share, as the agreement compares them */
    String agreementText() {
        return MpiEngine.PAIRS_IN_ROUND_UP_TO.key() + "=" + pairsInRoundUpTo + ", " + MpiEngine.COUNT_EXCHANGE.key() + "="
                + countExchange + ", " + MpiEngine.SPARSE_FROM.key() + "=" + sparseFrom + ", " + MpiEngine.SYNC_TIMEOUT.key() + "="
                + syncTimeoutMillis;
    }
}
