package org.lpf4j.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.examples.InnerProduct;
import org.lpf4j.spi.Engines;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code lpf run --engine mpi -p 3} in a real {@code lpf} JVM: the run goes through mpirun, the
 * program's checked result comes back, and the timing line tells the truth about processes that
 * ran in other JVMs (it names them as not timed here; it does not claim they made 0 syncs).
 * Skipped where the MPI engine cannot run (no mpirun or libmpi).
 */
@Timeout(180)
class LaunchedRunTest {
    private static final Pattern TIMING = Pattern.compile(
            "on the mpi engine: p=3  supersteps=(\\d+)  time=[0-9.]+ ms  per superstep=[0-9.]+ µs  \\(in sync: [0-9.]+ µs\\)");

    @Test
    void anSpmdProgramOnTheMpiEngineReportsWhatPidZeroTimed() throws Exception {
        assumeTrue(Engines.installed().stream().anyMatch(e -> e.name().equals("mpi") && e.launcher().isPresent()
                && e.query().canRun()), "the MPI engine cannot run here (it needs mpirun and libmpi)");
        LpfJvm r = LpfJvm.run(150, "run", "--engine", "mpi", "-p", "3", "org.lpf4j.examples.InnerProduct", "20000");
        String out = r.out();
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(out.contains(String.format("inner product of two vectors of length 20000 on 3 processes: %.1f "
                + "(sequential check: equal)", InnerProduct.sequential(20000))), r::both);
        Matcher m = TIMING.matcher(out);
        assertTrue(m.find(), r::both);
        assertEquals(3, Integer.parseInt(m.group(1)), "InnerProduct makes three supersteps: " + r.both());
        assertTrue(out.contains("note: timed in this JVM only (pid 0); pids 1-2 ran in other JVMs: not timed or"
                + " counted here"), r::both);
        assertFalse(out.contains("warning"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /**
     * MPICH's library on a machine whose only launcher is Open MPI's, reached as plain {@code mpirun}
     * and {@code mpiexec} (as Debian's alternatives do): the run is refused, saying which launcher is
     * missing, instead of starting the ranks as jobs of one process each.
     */
    @Test
    void withoutTheLaunchersOfTheLibraryTheRunIsRefusedSayingWhy(@org.junit.jupiter.api.io.TempDir java.nio.file.Path bin)
            throws Exception {
        java.util.Optional<java.nio.file.Path> openMpi = java.util.stream.Stream.of(System.getenv("PATH").split(":"))
                .map(d -> java.nio.file.Path.of(d, "mpirun.openmpi")).filter(java.nio.file.Files::isExecutable).findFirst();
        assumeTrue(openMpi.isPresent(), "Open MPI is not installed");
        for (String name : new String[] {"mpirun", "mpiexec"}) {
            java.nio.file.Files.createSymbolicLink(bin.resolve(name), openMpi.get().toRealPath());
        }
        LpfJvm r;
        try {
            r = LpfJvm.run(60, java.util.Map.of("PATH", bin.toString()), "run", "--engine", "mpi", "-p", "2",
                    "--param", "lpf.engine.mpi.library=libmpich.so.12", "org.lpf4j.examples.InnerProduct", "20000");
        } finally {
            for (String name : new String[] {"mpirun", "mpiexec"}) java.nio.file.Files.delete(bin.resolve(name));
        }
        assertTrue(r.done(), r::both);
        assertEquals(UsageException.EXIT_CODE, r.exitCode(), r::both);
        assertTrue(r.err().contains("the MPI library libmpich.so.12 is MPICH's, and MPICH's launcher is not on the PATH"), r::both);
        assertFalse(r.out().contains("inner product"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /**
     * {@code lpf run --engine hybrid --nodes 3 -p 5}: three JVMs of at most 2 threads, and a machine
     * of 5 processes (2 + 2 + 1), not 3 × 2 = 6.
     */
    @Test
    void theHybridEngineRunsExactlyTheProcessesAskedFor() throws Exception {
        assumeTrue(Engines.installed().stream().anyMatch(e -> e.name().equals("hybrid") && e.launcher().isPresent()
                && e.query().canRun()), "the hybrid engine cannot run here (it needs mpirun and libmpi)");
        LpfJvm r = LpfJvm.run(150, "run", "--engine", "hybrid", "--nodes", "3", "-p", "5", "org.lpf4j.examples.InnerProduct", "20000");
        String out = r.out();
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(out.contains(String.format("inner product of two vectors of length 20000 on 5 processes: %.1f "
                + "(sequential check: equal)", InnerProduct.sequential(20000))), r::both);
        assertTrue(out.contains("on the hybrid engine (--engine hybrid), p = 5 (machine size 5"), r::both);
        assertTrue(out.contains("note: timed in this JVM only (pids 0-1); pids 2-4 ran in other JVMs"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /**
     * With MPICH's library asked for on a machine that has both MPIs, the ranks start under MPICH's
     * Hydra: one job of 3 processes (under Open MPI's mpirun each rank was a job of one, and the
     * program ran three times on one process each).
     */
    @Test
    void mpichsLibraryRunsUnderMpichsLauncher() throws Exception {
        org.lpf4j.spi.Parameters.set("lpf.engine.mpi.library", "libmpich.so.12");
        try {
            assumeTrue(Engines.installed().stream().anyMatch(e -> e.name().equals("mpi") && e.launcher().isPresent()
                    && e.query().canRun()), "the MPI engine cannot run MPICH here (it needs libmpich and mpiexec.mpich)");
        } finally {
            org.lpf4j.spi.Parameters.clear("lpf.engine.mpi.library");
        }
        LpfJvm r = LpfJvm.run(150, "run", "--engine", "mpi", "-p", "3", "--param", "lpf.engine.mpi.library=libmpich.so.12",
                "org.lpf4j.examples.InnerProduct", "20000");
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        String result = "inner product of two vectors of length 20000 on ";
        assertEquals(1, r.out().lines().filter(l -> l.startsWith(result)).count(), () -> "one result: " + r.both());
        assertTrue(r.out().contains(result + "3 processes: "), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }
}
