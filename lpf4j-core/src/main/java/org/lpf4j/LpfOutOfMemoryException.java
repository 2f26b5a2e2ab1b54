package org.lpf4j;

/**
 * {@code LPF_ERR_OUT_OF_MEMORY}: the call could not get the memory it needed and had no effect;
 * the program may free memory and retry, or ask for less.
 */
public class LpfOutOfMemoryException extends LpfException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was asked for
     * @param cause   the underlying error, or {@code null}
     */
    public LpfOutOfMemoryException(String message, Throwable cause) {
        super(message, cause);
    }
}
