package org.lpf4j.tools;

/**
 * The user's program failed (its {@code main} threw, or its SPMD section ended in the failure
 * state): {@code lpf} prints the message and the cause's stack trace and exits with status
 * {@value #EXIT_CODE}.
 */
public final class ProgramFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The exit status of a failed program. */
    public static final int EXIT_CODE = 1;

    /**
     * @param message what failed
     * @param cause   the exception behind it (may be {@code null})
     */
    public ProgramFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
