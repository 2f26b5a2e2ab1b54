package org.lpf4j.spi.boot;

import org.lpf4j.FatalException;

import java.util.Arrays;

/**
 * A boot operation failed for a reason outside the caller's control: a participant of a fence
 * died, closed its session or did not arrive within the timeout (PMIx's "local collective
 * status"), the coordinator or launcher was lost, or a value is not available. The message names
 * the operation, the ranks and the reason; {@link #missingRanks()} lists the ranks that did not
 * take part (empty when the failure is not about missing ranks).
 */
public class BootException extends FatalException {
    private static final long serialVersionUID = 1L;

    private final int[] missingRanks;

    /**
     * @param message      what failed and why
     * @param missingRanks the ranks that died, closed or did not arrive (copied; sorted here)
     * @param cause        the underlying cause, or {@code null}
     */
    public BootException(String message, int[] missingRanks, Throwable cause) {
        super(message, cause);
        this.missingRanks = missingRanks.clone();
        Arrays.sort(this.missingRanks);
    }

    /** @param message what failed and why (no ranks missing) */
    public BootException(String message) { this(message, new int[0], null); }

    /** @return the ranks that did not take part, ascending (a copy) */
    public int[] missingRanks() { return missingRanks.clone(); }
}
