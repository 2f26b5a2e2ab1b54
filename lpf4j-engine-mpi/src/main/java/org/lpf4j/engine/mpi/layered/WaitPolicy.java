package org.lpf4j.engine.mpi.layered;

/**
 * How a rank waits inside MPI, chosen by an engine layered on this one before MPI starts:
 * whether the MPI library's progress loop yields the core while it waits. Open MPI reads it from
 * {@code OMPI_MCA_mpi_yield_when_idle}; MPICH has no such switch: the MPI engine's waits
 * poll nonblocking calls and yield themselves when asked to ({@code lpf.engine.mpi.wait}). A user's own
 * setting of the variable wins.
 * <ul>
 *   <li>{@code yield = false}: the waiting rank shares its cores only with threads that wait for
 *       it (a layered engine's node bound to CPUs of its own); a yield per poll would cost a
 *       context switch each (docs/performance.md).</li>
 *   <li>{@code yield = true}: other threads may need the same cores while the rank waits (one
 *       rank per node looks "not oversubscribed" to Open MPI, which would spin without yielding
 *       and starve them: an empty sync then takes milliseconds).</li>
 * </ul>
 * Cost: one {@code setenv} in the C environment.
 */
public final class WaitPolicy {
    private WaitPolicy() {}

    /** The last request: 1 yield, 0 spin, -1 none. */
    private static volatile int requested = -1;

    /** @return the last {@link #request}: 1 to yield, 0 to spin, -1 if none was made (the MPI engine's waits follow it with MPICH) */
    public static int requested() { return requested; }

    private static final String OPEN_MPI_YIELD = org.lpf4j.spi.kit.LauncherEnvironment.OMPI_YIELD_WHEN_IDLE;

    /**
     * Chooses the policy, before MPI is initialised; best effort (a failure is printed).
     *
     * @param yield whether the progress loop yields the core while it waits
     */
    public static void request(boolean yield) {
        requested = yield ? 1 : 0;
        try {
            NativeEnv.setIfUnset(OPEN_MPI_YIELD, yield ? "1" : "0");
        } catch (RuntimeException | LinkageError e) {
            System.err.println("lpf4j mpi: could not set " + OPEN_MPI_YIELD + ": " + e);
        }
    }
}
