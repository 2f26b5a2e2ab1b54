package org.lpf4j.debug;

import org.lpf4j.FatalException;

/**
 * A programming error found by the debug layer ({@code lpf.debug=true}). It is a
 * {@link FatalException}: the process that finds the error throws it from the offending call (or
 * from {@code sync}, for errors only visible there), which puts the section into the failure
 * state; the other processes get one from their next {@code sync}, and the {@code exec},
 * {@code hook} or {@code rehook} that started the section throws one. All carry the first report's
 * message: {@code lpf debug [check] call at Class.method(File.java:line) on pid s of p (superstep
 * n): what is wrong, with the values}.
 */
public final class LpfProgrammingError extends FatalException {
    private static final long serialVersionUID = 1L;

    private final Check check;

    /**
     * @param check   what was found
     * @param message the report
     * @param cause   the underlying exception, or {@code null}
     */
    public LpfProgrammingError(Check check, String message, Throwable cause) {
        super(message, cause);
        this.check = check;
    }

    /** @return the check that found the error */
    public Check check() { return check; }
}
