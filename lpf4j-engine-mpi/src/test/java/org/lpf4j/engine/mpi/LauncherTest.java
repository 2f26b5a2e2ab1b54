package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.spi.Query;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code lpf run --engine mpi -p N} starts (the command line, without starting it), and how
 * the engine presents itself in a JVM that no MPI launcher started (this test JVM).
 */
class LauncherTest {
    private static final ProcessLauncher.Launch LAUNCH = new ProcessLauncher.Launch(5, "/jdk/bin/java", "a.jar:b.jar",
            List.of("-Xmx1g"), "org.lpf4j.tools.LpfCommand", List.of("run", "org.example.Main", "x"));

    @Test
    void openMpiCommandCarriesWhatTheJvmsNeed() {
        List<String> c = new MpiLauncher(MpiLauncher.Kind.OPEN_MPI).command(LAUNCH);
        String line = String.join(" ", c);
        // The wrapper that names a rank that dies (RankGuard's report), then env, then mpirun.
        assertEquals(List.of("/bin/sh", "-c"), c.subList(0, 2), line);
        assertTrue(c.get(2).contains("LPF_MPI_REPORTS"), line);
        assertEquals("env", c.get(4), line);
        assertTrue(c.contains("UCX_ERROR_SIGNALS="), line);
        assertTrue(line.contains("mpirun"), line);
        assertTrue(line.contains("--oversubscribe --bind-to none -x UCX_ERROR_SIGNALS -x LPF_MPI_REPORTS"), line);
        assertTrue(line.contains("-n 5 /jdk/bin/java --enable-native-access=ALL-UNNAMED -Dlpf.engine.threads.procs=5 -Xmx1g"
                + " -cp a.jar:b.jar org.lpf4j.tools.LpfCommand run org.example.Main x"), line);
        if ("root".equals(System.getProperty("user.name"))) {
            assertTrue(c.contains("--allow-run-as-root") && c.contains("OMPI_ALLOW_RUN_AS_ROOT=1"), line);
        }
    }

    @Test
    void mpichCommandLoadsMpichAndHostOptionsPassThrough() {
        Parameters.set("lpf.engine.mpi.launcherOptions", "--hostfile hosts.txt");
        try {
            List<String> c = new MpiLauncher(MpiLauncher.Kind.MPICH).command(LAUNCH);
            String line = String.join(" ", c);
            assertTrue(line.contains("mpiexec"), line);
            assertTrue(line.contains("--hostfile hosts.txt -n 5 "), line);
            assertTrue(c.contains("-Dlpf.engine.mpi.library=libmpich.so.12"), line);
            assertFalse(c.contains("--oversubscribe"), line);
        } finally {
            Parameters.clear("lpf.engine.mpi.launcherOptions");
        }
    }

    @Test
    void withoutALauncherTheEngineRunsOnlyThroughItsOwnLauncher() {
        MpiEngineProvider e = new MpiEngineProvider();
        Query q = e.query();
        if (MpiLibrary.locate("") == null || !MpiLauncher.forThisMachine().available()) {
            assertFalse(q.canRun(), q.toString());
            return;
        }
        assertTrue(q.canRun(), q.toString());
        assertTrue(q.priority() < 50, "never the default outside an MPI job: " + q);
        assertTrue(e.launcher().isPresent(), "lpf run -p N delegates to mpirun");
        assertEquals(1, e.machineSize());
    }

    @Test
    void aMissingLibraryIsDeclinedWithTheReason() {
        Parameters.set("lpf.engine.mpi.library", "/nonexistent/libmpi.so");
        try {
            Query q = new MpiEngineProvider().query();
            assertFalse(q.canRun());
            assertTrue(q.reason().contains("/nonexistent/libmpi.so"), q.reason());
        } finally {
            Parameters.clear("lpf.engine.mpi.library");
        }
    }
}
