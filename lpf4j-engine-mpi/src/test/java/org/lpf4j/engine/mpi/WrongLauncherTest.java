package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.MpiJob;
import org.lpf4j.testkit.UcxSignalsMain;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The launcher belongs to the library: {@code lpf run}'s launcher follows {@code lpf.engine.mpi.library}
 * (libmpich: MPICH's Hydra; libmpi.so: Open MPI's mpirun), and a rank that a launcher of another MPI
 * started (each JVM then is an MPI job of one process) fails at start saying so, instead of running
 * the program once per rank.
 */
class WrongLauncherTest {
    @Test
    void theLauncherFollowsTheLibrary() {
        assumeTrue(System.getenv("SLURM_JOB_ID") == null, "inside Slurm the launcher is srun for every library");
        assertEquals(MpiLauncher.Kind.MPICH, MpiLauncher.forLibrary("libmpich.so.12").kind());
        assertEquals(MpiLauncher.Kind.MPICH, MpiLauncher.forLibrary("/opt/mpich/lib/libmpich.so.12").kind());
        assertEquals(MpiLauncher.Kind.OPEN_MPI, MpiLauncher.forLibrary("libmpi.so.40").kind());
        MpiLauncher mpich = MpiLauncher.forLibrary("libmpich.so.12");
        if (mpich.available()) {
            List<String> c = mpich.command(2, List.of("java", "Main"));
            assertTrue(c.getFirst().contains("mpiexec") && !c.getFirst().contains("openmpi"), c::toString);
            assertTrue(mpich.javaCommand(2, java.nio.file.Path.of("/jdk"), List.of(), "cp", "Main", List.of())
                    .contains("-Dlpf.engine.mpi.library=libmpich.so.12"));
        } else {
            assertTrue(mpich.unavailableReason().contains("libmpich.so.12 is MPICH's"), mpich.unavailableReason());
        }
    }

    /** A plain mpiexec/mpirun counts only as the launcher of the MPI it is (by its real file, else its --version). */
    @Test
    void aPlainLauncherIsTheOneOfItsOwnMpi(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path hydra = script(dir.resolve("real/mpiexec.hydra"), "echo 'HYDRA build details:'");
        java.nio.file.Path bin = java.nio.file.Files.createDirectories(dir.resolve("bin"));
        java.nio.file.Files.createSymbolicLink(bin.resolve("mpiexec"), hydra);
        assertEquals(java.util.Optional.of(bin.resolve("mpiexec")), new MpiLauncher(MpiLauncher.Kind.MPICH).executable(bin.toString()));
        assertEquals(java.util.Optional.empty(), new MpiLauncher(MpiLauncher.Kind.OPEN_MPI).executable(bin.toString()));
        java.nio.file.Path other = script(dir.resolve("other/mpirun"), "echo 'mpirun (Open MPI) 5.0.3'");
        String path = other.getParent().toString();
        assertEquals(java.util.Optional.of(other), new MpiLauncher(MpiLauncher.Kind.OPEN_MPI).executable(path));
        assertEquals(java.util.Optional.empty(), new MpiLauncher(MpiLauncher.Kind.MPICH).executable(path));
    }

    private static java.nio.file.Path script(java.nio.file.Path file, String body) throws java.io.IOException {
        java.nio.file.Files.createDirectories(file.getParent());
        java.nio.file.Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        file.toFile().setExecutable(true);
        return file;
    }

    @Test
    void mpichRanksUnderOpenMpisMpirunFailAtStartSayingWhy() {
        org.lpf4j.testkit.Needs.that(MpiEngine.libraryInstalled("libmpich.so.12"), "MPICH not installed");
        MpiJob.Result r = MpiJob.openMpi().jvm("-Dlpf.engine.mpi.library=libmpich.so.12")
                .run(2, Duration.ofSeconds(60), UcxSignalsMain.class, "2");
        assertFalse(r.timedOut(), r::both);
        assertNotEquals(0, r.exitCode(), r::both);
        assertTrue(r.err().contains("the launcher announced 2 processes (OMPI_COMM_WORLD_SIZE=2, set by Open MPI's mpirun)"
                + " but MPI_Comm_size(MPI_COMM_WORLD) of libmpich.so.12 (MPICH) says 1"), r::both);
        assertTrue(r.err().contains("Start the job with the launcher of the library"), r::both);
        assertFalse(r.out().contains("NullPointerExceptions"), () -> "no rank ran the program: " + r.both());
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }
}
