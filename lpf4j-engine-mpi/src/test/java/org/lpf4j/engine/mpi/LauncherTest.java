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
    void askedToPollOpenMpisRanksYieldInsideMpiToo() {
        String yield = org.lpf4j.spi.kit.LauncherEnvironment.OMPI_YIELD_WHEN_IDLE + "=1";
        boolean usersOwn = System.getenv(org.lpf4j.spi.kit.LauncherEnvironment.OMPI_YIELD_WHEN_IDLE) != null; // it wins
        assertFalse(new MpiLauncher(MpiLauncher.Kind.OPEN_MPI).command(LAUNCH).contains(yield), "not asked: mpirun decides");
        Parameters.set("lpf.engine.mpi.wait", "poll");
        try {
            List<String> c = new MpiLauncher(MpiLauncher.Kind.OPEN_MPI).command(LAUNCH);
            assertEquals(!usersOwn, c.indexOf(yield) > c.indexOf("env") && c.indexOf(yield) < c.indexOf("--oversubscribe"), String.join(" ", c));
            assertFalse(new MpiLauncher(MpiLauncher.Kind.MPICH).command(LAUNCH).contains(yield), "MPICH has no such switch");
        } finally {
            Parameters.clear("lpf.engine.mpi.wait");
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
     * ends: normally, with a failure, or by a signal that reaches the wrapper and the launcher
     * alike, as a terminal's Ctrl-C does (sent here to both).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"INT, 130", "TERM, 143"})
    void theWrapperLeavesNoReportDirectoryBehind(String signal, int status, @org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        // A shell cannot trap a signal it was started with ignored (a JVM started in the background by a script).
        org.junit.jupiter.api.Assumptions.assumeFalse(ignoredHere(signal), "SIG" + signal + " is ignored by this JVM");
        assertEquals(0, wrapped(tmp, List.of("true")).waitFor());
        assertEquals(List.of(), entries(tmp), "after a normal end");
        assertEquals(3, wrapped(tmp, List.of("sh", "-c", "exit 3")).waitFor());
        assertEquals(List.of(), entries(tmp), "after a failure");

        Process wrapper = wrapped(tmp, List.of("sleep", "30"));
        try {
            // Only once the child is sleep: the shell's fork, before its exec, would still run the shell's trap.
            long deadline = System.nanoTime() + 10_000_000_000L;
            java.util.Optional<ProcessHandle> sleeper = java.util.Optional.empty();
            while (sleeper.isEmpty() && System.nanoTime() < deadline) {
                sleeper = wrapper.children().filter(c -> c.info().command().map(x -> x.endsWith("/sleep")).orElse(false)).findAny();
                if (sleeper.isEmpty()) Thread.sleep(20);
            }
            assertTrue(sleeper.isPresent(), "the wrapper started its program");
            assertEquals(1, entries(tmp).size(), "the wrapper made its directory");
            assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(wrapper.pid()), Long.toString(sleeper.get().pid()))
                    .start().waitFor());
            assertTrue(wrapper.waitFor(10, java.util.concurrent.TimeUnit.SECONDS), "the wrapper ended after SIG" + signal);
            assertEquals(status, wrapper.exitValue());
            assertEquals(List.of(), entries(tmp), "after SIG" + signal);
        } finally {
            wrapper.descendants().forEach(ProcessHandle::destroyForcibly);
            wrapper.destroyForcibly();
        }
    }

    /** @return whether this JVM ignores the signal (its children inherit that): Linux's SigIgn mask */
    private static boolean ignoredHere(String signal) throws java.io.IOException {
        int number = signal.equals("INT") ? 2 : 15;
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:")) return (Long.parseUnsignedLong(line.substring(7).strip(), 16) >>> (number - 1) & 1) != 0;
        }
        return false;
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
