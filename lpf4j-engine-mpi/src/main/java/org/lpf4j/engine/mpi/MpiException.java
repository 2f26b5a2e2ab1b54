package org.lpf4j.engine.mpi;

/**
 * An MPI call returned an error (the engine installs {@code MPI_ERRORS_RETURN}, so errors come back
 * as codes instead of aborting the job). The message names the call, its arguments and MPI's own
 * error string.
 */
public final class MpiException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The MPI error code. */
    private final int code;

    MpiException(String call, int code, String text) {
        super(call + " failed with MPI error " + code + ": " + text);
        this.code = code;
    }

    /** @return the MPI error code the call returned */
    public int code() { return code; }
}
