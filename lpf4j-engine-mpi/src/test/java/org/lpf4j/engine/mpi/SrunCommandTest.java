package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MPI engine's srun command lines and which of srun's MPI plugins each MPI needs. Needs no
 * Slurm: {@code SlurmRunTest} in lpf4j-tools runs a real one.
 */
class SrunCommandTest {
    @Test
    void srunsCommandLine() {
        org.lpf4j.spi.Parameters.set("lpf.engine.mpi.launchNodes", "2");
        try {
            int p = 4 * Runtime.getRuntime().availableProcessors() + 1; // more than the cores of any allocation this JVM is in
            List<String> c = new MpiLauncher(MpiLauncher.Kind.SRUN).command(new org.lpf4j.spi.ProcessLauncher.Launch(p, "java", "cp",
                    List.of(), "Main", List.of("a")));
            int srun = c.indexOf(c.stream().filter(a -> a.endsWith("srun")).findFirst().orElseThrow());
            assertTrue(c.get(srun + 1).startsWith("--mpi=pmix"), c::toString);
            assertEquals(List.of("--kill-on-bad-exit=1", "--quit-on-interrupt", "--cpu-bind=none", "-N", "2", "-n", Integer.toString(p),
                    "java"), c.subList(srun + 2, srun + 10));
            if (System.getenv("OMPI_MCA_mpi_yield_when_idle") == null) assertTrue(c.contains("OMPI_MCA_mpi_yield_when_idle=1"), c::toString);
        } finally {
            org.lpf4j.spi.Parameters.clear("lpf.engine.mpi.launchNodes");
        }
    }

    @Test
    void mpirunPlacesNoNodeCount() {
        org.lpf4j.spi.Parameters.set("lpf.engine.mpi.launchNodes", "2");
        try {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> new MpiLauncher(MpiLauncher.Kind.OPEN_MPI).command(new org.lpf4j.spi.ProcessLauncher.Launch(2, "java", "cp",
                            List.of(), "Main", List.of())));
            assertTrue(e.getMessage().contains("only srun places ranks on a number of nodes"), e.getMessage());
        } finally {
            org.lpf4j.spi.Parameters.clear("lpf.engine.mpi.launchNodes");
        }
    }

    @Test
    void openMpiNeedsPmixAndMpichPmi2() {
        assertEquals(Optional.of("pmix"), MpiLauncher.srunPlugin(false, List.of("pmix", "none", "pmi2")));
        assertEquals(Optional.of("pmix_v3"), MpiLauncher.srunPlugin(false, List.of("none", "pmix_v3")));
        assertEquals(Optional.empty(), MpiLauncher.srunPlugin(false, List.of("none", "pmi2")));
        assertEquals(Optional.of("pmi2"), MpiLauncher.srunPlugin(true, List.of("pmix", "pmi2")));
        assertEquals(Optional.empty(), MpiLauncher.srunPlugin(true, List.of("pmix", "none")));
    }
}
