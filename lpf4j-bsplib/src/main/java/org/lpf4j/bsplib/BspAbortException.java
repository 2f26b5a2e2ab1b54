package org.lpf4j.bsplib;

/**
 * Thrown by {@link Bsplib#abort(String)} ({@code bsp_abort}) in the process that aborts. Leaving
 * the SPMD function with it puts the section in the failure state: every other process gets a
 * {@link org.lpf4j.FatalException} from its next sync, and the {@code exec} that started the
 * section throws a {@code FatalException} whose cause is this exception (its message names the
 * aborting pid and the reason).
 */
public final class BspAbortException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message the aborting pid and the program's reason */
    public BspAbortException(String message) {
        super(message);
    }
}
