package org.lpf4j.engine.mpi;

import org.lpf4j.superstep.ProtocolSettings;

/**
 * The MPI engine's settings for its sections, resolved once from the parameters (when the
 * runtime starts for {@code Lpf.root()}'s sections, at {@code hook} for hooked ones) and carried
 * by every context of those sections, so that nothing on the sync path reads a parameter. Every
 * rank of a job must resolve the same values (the start-up agreement compares
 * {@link #agreementText()}); a hook is the program's own affair. Immutable.
 *
 * @param protocol          the protocol's settings ({@link MpiParameters#PROTOCOL}: {@code pairsInRoundUpTo},
 *                          {@code countExchange}, {@code sparseFrom}; the copy may differ between ranks)
 * @param probeNanos        the time budget of one probe measurement ({@link MpiParameters#PROBE_MILLIS})
 * @param syncTimeoutMillis the deadline on the wait in a sync, 0 for none ({@link MpiParameters#SYNC_TIMEOUT})
 */
record MpiSettings(ProtocolSettings protocol, long probeNanos, int syncTimeoutMillis) {
    /** @return the current values of the engine's parameters */
    static MpiSettings resolve() {
        return new MpiSettings(MpiParameters.PROTOCOL.resolve(), MpiParameters.PROBE_MILLIS.get() * 1_000_000L, MpiParameters.SYNC_TIMEOUT.get());
    }

    /** @return the settings the ranks of one job must share, as the agreement compares them */
    String agreementText() {
        return MpiParameters.PROTOCOL.agreementText(protocol) + ", " + MpiParameters.SYNC_TIMEOUT.key() + "=" + syncTimeoutMillis;
    }
}
