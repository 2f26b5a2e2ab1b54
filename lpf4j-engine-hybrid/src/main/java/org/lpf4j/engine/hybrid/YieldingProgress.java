package org.lpf4j.engine.hybrid;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Makes Open MPI's progress loop yield the core while it waits ({@code mpi_yield_when_idle=1}),
 * unless the user set it: the leader of a node waits inside MPI while the node's other threads
 * need the same cores (one rank per node looks "not oversubscribed" to Open MPI, so it would spin
 * without yielding and starve them: an empty sync then takes milliseconds, docs/performance.md).
 * Sets the environment variable through
 * {@code setenv} (java.lang.foreign) before MPI is initialised; MPICH ignores it.
 */
final class YieldingProgress {
    private YieldingProgress() {}

    private static final String KEY = "OMPI_MCA_mpi_yield_when_idle";

    /** Sets {@code OMPI_MCA_mpi_yield_when_idle=1} in this process's environment if it is unset; best effort. */
    static void request() {
        if (System.getenv(KEY) != null) return;
        try {
            Linker linker = Linker.nativeLinker();
            MethodHandle setenv = linker.downcallHandle(linker.defaultLookup().find("setenv").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            try (Arena a = Arena.ofConfined()) {
                int rc = (int) setenv.invokeExact(a.allocateFrom(KEY), a.allocateFrom("1"), 0);
                if (rc != 0) System.err.println("lpf4j hybrid: could not set " + KEY + " (setenv returned " + rc + ")");
            }
        } catch (Throwable t) {
            System.err.println("lpf4j hybrid: could not set " + KEY + ": " + t);
        }
    }
}
