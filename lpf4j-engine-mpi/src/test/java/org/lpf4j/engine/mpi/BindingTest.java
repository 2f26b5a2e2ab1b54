package org.lpf4j.engine.mpi;

import org.lpf4j.testkit.MpiJob;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FFM binding under real MPI jobs, both ABIs: every call of {@link Mpi} the engine uses, an MPI
 * error turned into an exception naming the call, and the JVM's own signal handling intact after
 * {@code MPI_Init}. Each job is bounded, killed in {@code finally}, and checked for leftovers.
 */
class BindingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @Test
    void openMpiTwoRanks() {
        check(MpiJob.openMpi().run(2, TIMEOUT, BindingSmokeMain.class), 2, "Open MPI");
    }

    @Test
    void openMpiFourRanksOversubscribed() {
        check(MpiJob.openMpi().run(4, TIMEOUT, BindingSmokeMain.class), 4, "Open MPI");
    }

    @Test
    void mpichThreeRanks() {
        check(MpiJob.mpich().run(3, TIMEOUT, BindingSmokeMain.class), 3, "MPICH");
    }

    static void check(MpiJob.Result r, int n, String abi) {
        assertFalse(r.timedOut(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        for (int rank = 0; rank < n; rank++) {
            assertTrue(r.out().contains("OK " + rank + " " + n + " abi=" + abi + " level="), "rank " + rank + ": " + r.both());
        }
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }
}
