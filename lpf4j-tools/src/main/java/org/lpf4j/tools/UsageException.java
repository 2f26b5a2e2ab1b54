package org.lpf4j.tools;

/**
 * A mistake of the user (unknown class, bad parameter, ...): {@code lpf} prints its message and
 * exits with status {@value #EXIT_CODE}, without a stack trace.
 */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The exit status of a usage error, as picocli uses for bad options. */
    public static final int EXIT_CODE = 2;

    /** @param message what is wrong and, where possible, how to fix it */
    public UsageException(String message) {
        super(message);
    }
}
