package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;
import org.lpf4j.engine.mpi.layered.NativeEnv;
import org.lpf4j.testkit.MpiJob;
import org.lpf4j.testkit.UcxSignalsMain;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program started by hand under MPICH's Hydra ({@code mpiexec.mpich -n 3 java ...}), with no
 * {@code UCX_ERROR_SIGNALS} in the environment: the engine sets it itself before libmpi (and UCX)
 * loads, so the JVM keeps its own SIGSEGV handling (without it, the first implicit null check
 * ends the JVM in UCX's {@code ucs_handle_error}).
 */
class UcxSignalsTest {
    @Test
    void underHydraByHandWithoutTheVariableTheJvmKeepsItsSignals() {
        MpiJob.Result r = MpiJob.mpich().byHand().unsetEnvironment(MpiLibrary.UCX_ERROR_SIGNALS)
                .run(3, Duration.ofSeconds(90), UcxSignalsMain.class, "3");
        assertFalse(r.timedOut(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        for (int pid = 0; pid < 3; pid++) {
            assertTrue(r.out().contains("pid " + pid + ": caught 100000 NullPointerExceptions, UCX_ERROR_SIGNALS=[]"), r::both);
        }
        assertTrue(r.out().contains("ALL DONE"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }

    @Test
    void aValueAlreadySetIsKept() {
        String name = "LPF4J_TEST_NATIVE_ENV_" + ProcessHandle.current().pid();
        assertNull(NativeEnv.get(name));
        assertTrue(NativeEnv.setIfUnset(name, "first"));
        assertEquals("first", NativeEnv.get(name));
        assertFalse(NativeEnv.setIfUnset(name, "second"));
        assertEquals("first", NativeEnv.get(name));
    }
}
