package org.lpf4j.engine.mpi;

import org.lpf4j.engine.mpi.layered.WaitPolicy;
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
 * @param polls             whether a sync's waits poll nonblocking calls, yielding the core between polls, even
 *                          without a deadline ({@link MpiParameters#WAIT}; this rank's own choice)
 */
record MpiSettings(ProtocolSettings protocol, long probeNanos, int syncTimeoutMillis, boolean polls) {
    /**
     * @param abi the loaded library's ABI (for {@link MpiParameters#WAIT}'s {@code auto})
     * @return the current values of the engine's parameters
     */
    static MpiSettings resolve(MpiAbi abi) {
        return new MpiSettings(MpiParameters.PROTOCOL.resolve(), MpiParameters.PROBE_MILLIS.get() * 1_000_000L,
                MpiParameters.SYNC_TIMEOUT.get(), polls(MpiParameters.WAIT.get(), abi, WaitPolicy.requested(),
                        org.lpf4j.spi.kit.LaunchedHost.ranksOnThisHost(), Runtime.getRuntime().availableProcessors()));
    }

    /**
     * {@link MpiParameters#WAIT}'s rule.
     *
     * @param requested a layered engine's request ({@link WaitPolicy#requested}): 1 yield, 0 spin, -1 none
     */
    static boolean polls(String wait, MpiAbi abi, int requested, int ranksOnThisHost, int cores) {
        return switch (wait) {
            case "poll" -> true;
            case "block" -> false;
            default -> abi == MpiAbi.MPICH && (requested >= 0 ? requested == 1 : ranksOnThisHost > cores);
        };
    }

    /** @return the settings the ranks of one job must share, as the agreement compares them */
    String agreementText() {
        return MpiParameters.PROTOCOL.agreementText(protocol) + ", " + MpiParameters.SYNC_TIMEOUT.key() + "=" + syncTimeoutMillis;
    }
}
