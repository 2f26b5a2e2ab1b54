package org.lpf4j.spi.boot;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * How a {@linkplain BootSession#fence fence} runs: who participates, whether committed data is
 * collected, and how long to wait.
 *
 * <p>Participants are either all processes of the job ({@code ranks == null}, PMIx's
 * {@code PMIX_RANK_WILDCARD}) or an explicit set of ranks. As in PMIx, every participant must
 * describe the fence the same way: a fence over "all" never matches one over the explicit list
 * {@code 0..p-1}, and participants that disagree on the set or on {@code collectData} get a
 * {@link BootException} (or a timeout) rather than a fence. The caller must be a participant.
 *
 * <p>Without {@code collectData} the fence is a barrier. With it, every participant ends up with
 * the data every participant had committed before entering the fence (PMIx's
 * {@code PMIX_COLLECT_DATA}).
 *
 * @param ranks       the participating ranks (distinct, ascending), or {@code null} for all
 * @param collectData whether committed data is exchanged
 * @param timeout     how long the fence may take, or {@code null} for {@code lpf.boot.fence.timeout}
 */
public record FenceOptions(int[] ranks, boolean collectData, Duration timeout) {
    /** Checks the ranks (non-negative, distinct; they are sorted) and the timeout (positive). */
    public FenceOptions {
        if (ranks != null) {
            ranks = ranks.clone();
            Arrays.sort(ranks);
            if (ranks.length == 0) throw new IllegalArgumentException("FenceOptions: empty rank set");
            for (int i = 0; i < ranks.length; i++) {
                if (ranks[i] < 0 || (i > 0 && ranks[i] == ranks[i - 1])) {
                    throw new IllegalArgumentException("FenceOptions: ranks " + Arrays.toString(ranks)
                            + " must be distinct and non-negative");
                }
            }
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("FenceOptions: timeout " + timeout + " must be positive");
        }
    }

    /** @return a barrier over all processes with the default timeout */
    public static FenceOptions barrier() { return new FenceOptions(null, false, null); }

    /** @return a fence over all processes that collects committed data, with the default timeout */
    public static FenceOptions collect() { return new FenceOptions(null, true, null); }

    /**
     * @param participants the participating ranks
     * @return these options restricted to those ranks
     */
    public FenceOptions ranks(int... participants) {
        return new FenceOptions(Objects.requireNonNull(participants, "participants"), collectData, timeout);
    }

    /**
     * @param limit the time the fence may take
     * @return these options with that timeout
     */
    public FenceOptions timeout(Duration limit) { return new FenceOptions(ranks, collectData, Objects.requireNonNull(limit)); }

    /** @return whether all processes participate */
    public boolean all() { return ranks == null; }

    @Override public int[] ranks() { return ranks == null ? null : ranks.clone(); }

    /**
     * Checks these options for a session and resolves them.
     *
     * @param rank the caller's rank
     * @param size the job size
     * @return the participants, ascending
     * @throws IllegalArgumentException if a rank is not below {@code size} or the caller is not a participant
     */
    public int[] participants(int rank, int size) {
        if (ranks == null) {
            int[] all = new int[size];
            for (int i = 0; i < size; i++) all[i] = i;
            return all;
        }
        if (ranks[ranks.length - 1] >= size) {
            throw new IllegalArgumentException("fence(" + this + "): rank " + ranks[ranks.length - 1]
                    + " not in a job of " + size + " processes");
        }
        if (Arrays.binarySearch(ranks, rank) < 0) {
            throw new IllegalArgumentException("fence(" + this + "): the caller, rank " + rank + ", is not a participant");
        }
        return ranks.clone();
    }

    /** @return the timeout, or the current value of {@code lpf.boot.fence.timeout} */
    public Duration effectiveTimeout() { return timeout != null ? timeout : BootParameters.fenceTimeout(); }

    /** @return a canonical text of the participant description ("all" or the ranks) */
    public String describeParticipants() { return ranks == null ? "all" : Arrays.toString(ranks); }

    @Override
    public boolean equals(Object o) {
        return o instanceof FenceOptions f && Arrays.equals(ranks, f.ranks) && collectData == f.collectData
                && Objects.equals(timeout, f.timeout);
    }

    @Override
    public int hashCode() { return Objects.hash(Arrays.hashCode(ranks), collectData, timeout); }

    @Override
    public String toString() {
        return "ranks=" + describeParticipants() + ", collectData=" + collectData
                + ", timeout=" + (timeout == null ? "default" : timeout.toMillis() + " ms");
    }
}
