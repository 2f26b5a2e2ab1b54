package org.lpf4j.bsmp;

/**
 * {@code LPF_ERR_BSMP_INVAL}: a {@link Bsmp} object was used in a way its current state does not
 * allow — a send in READ mode, a move in WRITE mode, or a send after an earlier send of the same
 * superstep failed half-way in the LPF core (which leaves the object invalid for the rest of the
 * superstep).
 *
 * <p>The failing call has no effect. The next {@link Bsmp#sync()} (or {@link Bsmp#syncAll})
 * brings the object back into a valid state, exactly as the mode rules say.
 */
public class BsmpInvalidException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** @param message the call, the process and the state that refused it */
    public BsmpInvalidException(String message) {
        super(message);
    }
}
