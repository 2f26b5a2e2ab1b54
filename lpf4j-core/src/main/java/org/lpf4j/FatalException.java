package org.lpf4j;

/**
 * {@code LPF_ERR_FATAL}: the SPMD section is in the failure state. Thrown by {@code sync} when
 * another process has returned early, thrown, or the engine failed, and by the
 * {@code exec}/{@code hook}/{@code rehook} that started a failed section. Not recoverable: after
 * it, every later {@code sync}, {@code exec} and {@code rehook} of the same context throws again.
 *
 * <p>The {@linkplain #getCause() cause} is the first exception an SPMD function threw (others are
 * {@linkplain #getSuppressed() suppressed}), or {@code null} when a process simply returned early.
 */
public class FatalException extends LpfException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened
     * @param cause   the first exception behind the failure, or {@code null}
     */
    public FatalException(String message, Throwable cause) {
        super(message, cause);
    }
}
