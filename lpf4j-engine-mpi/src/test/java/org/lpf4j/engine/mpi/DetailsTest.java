package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf info}'s details of the MPI engine in a JVM no launcher started: the library and its
 * version are read without {@code MPI_Init}, and MPI is left uninitialised.
 */
class DetailsTest {
    @Test
    void openMpiIsDescribedWithoutInitialisingIt() {
        Map<String, String> d = new MpiEngineProvider().details();
        assertEquals(List.of("library", "flavour", "version", "thread level", "lpf run -p N starts"), List.copyOf(d.keySet()),
                d::toString);
        assertTrue(d.get("library").endsWith("/libmpi.so.40"), d::toString);
        assertEquals("Open MPI", d.get("flavour"), d::toString);
        assertTrue(d.get("version").startsWith("Open MPI v4."), d::toString); // MPI_Get_library_version before MPI_Init
        assertEquals("not initialised", d.get("thread level"), d::toString);
        assertTrue(d.get("lpf run -p N starts").matches("(mpirun|srun)\\S* .*"), d::toString);
        assertFalse(Mpi.load("").initialized(), "details() must not initialise MPI");
    }

    @Test
    void aMissingLibraryIsReportedNotThrown() {
        Map<String, String> d = MpiDetails.of("/nonexistent/libmpi.so.99");
        assertEquals(Map.of("library", "not found (looked for /nonexistent/libmpi.so.99)"), d);
    }

    @Test
    void flavourAndThreadLevelNames() {
        assertEquals("MPICH", MpiDetails.flavourFromName("/usr/lib/x86_64-linux-gnu/libmpich.so.12"));
        assertEquals("Open MPI", MpiDetails.flavourFromName("libmpi.so.40"));
        assertEquals("unknown", MpiDetails.flavourFromName("/opt/x/libfoo.so"));
        assertEquals("MPI_THREAD_SERIALIZED", MpiDetails.level(Mpi.THREAD_SERIALIZED));
        assertEquals("MPI_THREAD_MULTIPLE", MpiDetails.level(3));
        assertEquals("level 7", MpiDetails.level(7));
    }
}
