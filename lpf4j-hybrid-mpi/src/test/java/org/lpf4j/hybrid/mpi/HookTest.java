package org.lpf4j.hybrid.mpi;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.MpiJob;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code Lpf.hook(MpiHybrid.init(comm, t), ...)} from a program that uses MPI itself ({@link HookMain}), 2 JVMs under mpirun. */
class HookTest {
    @Test
    void hookOverTheProgramsCommunicator() { check(MpiJob.openMpi()); }

    @Test
    void hookOverTheProgramsCommunicatorOnMpich() { check(MpiJob.mpich()); }

    private static void check(MpiJob job) {
        MpiJob.Result r = job.jvm("-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.probeMillis=30")
                .run(2, Duration.ofMinutes(2), HookMain.class);
        assertFalse(r.timedOut(), r::both);
        assertTrue(r.out().contains("HYBRID HOOK OK 0\n") && r.out().contains("HYBRID HOOK OK 1\n"), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "left behind: " + r.ghosts());
    }
}
