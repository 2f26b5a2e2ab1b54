package org.lpf4j.bsmp;

import org.lpf4j.LpfException;

/**
 * {@code LPF_ERR_BSMP_FULL}: a message does not fit in the superstep's budget of a
 * {@link Bsmp} object (its {@code bufferSize} payload bytes or its {@code maxMessages} messages).
 *
 * <p>Thrown by {@code send}, the call then had no effect: the object is as if the call had never
 * been made and later sends that fit still succeed. Thrown by {@code sync} at a process that was
 * sent more than its budget in one superstep: that process then is in READ mode with an empty
 * queue (the superstep's messages to it are dropped), and every other process is unaffected.
 */
public class BsmpFullException extends LpfException {
    private static final long serialVersionUID = 1L;

    /** @param message the call, the process and the budget that was exceeded */
    public BsmpFullException(String message) {
        super(message, null);
    }
}
