package org.lpf4j;

/**
 * The root of the run-time errors the LPF core API defines (the C API's {@code lpf_err_t} codes
 * other than success). Bad arguments are reported with the JDK's standard exceptions instead
 * ({@link IllegalArgumentException}, {@link IndexOutOfBoundsException},
 * {@link IllegalStateException}).
 */
public abstract class LpfException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened
     * @param cause   the underlying cause, or {@code null}
     */
    protected LpfException(String message, Throwable cause) {
        super(message, cause);
    }
}
