package org.lpf4j.engine.hybrid;

import org.lpf4j.engine.mpi.layered.NativeEnv;

/**
 * Chooses whether Open MPI's progress loop yields the core while it waits
 * ({@code mpi_yield_when_idle}), unless the user set it; MPICH ignores the variable.
 * <ul>
 *   <li>Node JVMs bound to CPU shares of their own ({@link NodeCpus}): 0. A waiting leader then shares
 *       its cores only with its own node's threads, which wait for its round; a yield per poll
 *       would cost a context switch each (docs/performance.md).</li>
 *   <li>Otherwise: 1. The leader of a node waits inside MPI while other threads may need the
 *       same cores (one rank per node looks "not oversubscribed" to Open MPI, so it would spin
 *       without yielding and starve them: an empty sync then takes milliseconds).</li>
 * </ul>
 * Set in the C environment before MPI is initialised.
 */
final class YieldingProgress {
    private YieldingProgress() {}

    private static final String KEY = "OMPI_MCA_mpi_yield_when_idle";

    /**
     * Sets {@code OMPI_MCA_mpi_yield_when_idle} if it is unset; best effort (a failure is printed).
     *
     * @param ownCpus whether this node JVM is bound to CPUs no other node uses
     */
    static void request(boolean ownCpus) {
        try {
            NativeEnv.setIfUnset(KEY, ownCpus ? "0" : "1");
        } catch (RuntimeException | LinkageError e) {
            System.err.println("lpf4j hybrid: could not set " + KEY + ": " + e);
        }
    }
}
