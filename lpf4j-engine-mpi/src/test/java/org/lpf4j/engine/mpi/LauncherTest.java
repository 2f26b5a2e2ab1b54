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

    /**
     * The wrapper's report directory (and with it a death latch's key) goes however the launcher
     * ends: normally, with a failure, or by a terminal's Ctrl-C, which reaches the wrapper and the
     * launcher alike (sent here to both, as the terminal sends it to the foreground group).
     */
    @Test
    void theWrapperLeavesNoReportDirectoryBehind(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        assertEquals(0, wrapped(tmp, List.of("true")).waitFor());
        assertEquals(List.of(), entries(tmp), "after a normal end");
        assertEquals(3, wrapped(tmp, List.of("sh", "-c", "exit 3")).waitFor());
        assertEquals(List.of(), entries(tmp), "after a failure");

        Process wrapper = wrapped(tmp, List.of("sleep", "30"));
        try {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while ((entries(tmp).isEmpty() || wrapper.descendants().findAny().isEmpty()) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, entries(tmp).size(), "the wrapper made its directory");
            List<Long> group = new java.util.ArrayList<>(wrapper.descendants().map(ProcessHandle::pid).toList());
            group.addFirst(wrapper.pid());
            List<String> kill = new java.util.ArrayList<>(List.of("kill", "-INT"));
            group.forEach(pid -> kill.add(Long.toString(pid)));
            assertEquals(0, new ProcessBuilder(kill).start().waitFor());
            assertTrue(wrapper.waitFor(10, java.util.concurrent.TimeUnit.SECONDS), "the wrapper ended after Ctrl-C");
            assertEquals(130, wrapper.exitValue());
            assertEquals(List.of(), entries(tmp), "after Ctrl-C");
        } finally {
            wrapper.descendants().forEach(ProcessHandle::destroyForcibly);
            wrapper.destroyForcibly();
        }
    }

    private static Process wrapped(java.nio.file.Path tmp, List<String> program) throws java.io.IOException {
        ProcessBuilder pb = new ProcessBuilder(MpiLauncher.reporting(program));
        pb.environment().put("TMPDIR", tmp.toString());
        return pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static List<String> entries(java.nio.file.Path dir) throws java.io.IOException {
        try (var s = java.nio.file.Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }
}
