package org.lpf4j.engine.mpi;

/**
 * The MPI engine's settings for its sections, resolved once from the parameters (when the
 * runtime starts for {@code Lpf.root()}'s sections, at {@code hook} for hooked ones) and carried
 * by every context of those sections, so that nothing on the sync path reads a parameter. Every
 * rank of a job must resolve the same values (the start-up agreement compares
 * {@link #agreementText()}); a hook is the program's own affair. Immutable.
 *
 * @param countsInRoundUpTo sections of at most this many processes carry the message counts in
 *                          the sync's allreduce ({@link MpiEngine#COUNTS_IN_ROUND_UP_TO})
 * @param probeNanos        the time budget of one probe measurement ({@link MpiEngine#PROBE_MILLIS})
 */
record MpiSettings(int countsInRoundUpTo, long probeNanos) {
    /** @return the current values of the engine's parameters */
    static MpiSettings resolve() {
        return new MpiSettings(MpiEngine.COUNTS_IN_ROUND_UP_TO.get(), MpiEngine.PROBE_MILLIS.get() * 1_000_000L);
    }

    /** @return whether a section of {@code processes} carries the counts in its round */
    boolean countsInRound(int processes) { return processes > 1 && processes <= countsInRoundUpTo; }

    /** @return the settings the ranks of one job must share, as the agreement compares them */
    String agreementText() { return MpiEngine.COUNTS_IN_ROUND_UP_TO.key() + "=" + countsInRoundUpTo; }
}
