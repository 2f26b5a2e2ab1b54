package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.UcxSignalsMain;
import org.lpf4j.testkit.MpiJob;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hybrid engine started by hand under MPICH's Hydra without {@code UCX_ERROR_SIGNALS}: it
 * loads libmpi through the MPI engine, which sets the variable first, so every thread's implicit
 * null checks stay the JVM's (2 JVMs × 2 threads; the MPI engine's UcxSignalsTest explains).
 */
class UcxSignalsTest {
    @Test
    void underHydraByHandWithoutTheVariableTheJvmKeepsItsSignals() {
        MpiJob.Result r = MpiJob.mpich().byHand().unsetEnvironment("UCX_ERROR_SIGNALS")
                .jvm("-Dlpf.engine=hybrid", "-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=2")
                .run(2, Duration.ofSeconds(90), UcxSignalsMain.class, "4");
        assertFalse(r.timedOut(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        for (int pid = 0; pid < 4; pid++) {
            assertTrue(r.out().contains("pid " + pid + ": caught 100000 NullPointerExceptions, UCX_ERROR_SIGNALS=[]"), r::both);
        }
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }
}
