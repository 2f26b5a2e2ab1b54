package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf.engine.mpi.wait}'s rule: {@code poll} and {@code block} are obeyed; {@code auto} polls
 * only with MPICH (Open MPI yields by its own switch), when a layered engine asked for yielding, or,
 * without such a request, when the ranks on this host outnumber its cores. The MPICH conformance
 * job (ConformanceTest, 5 ranks on this machine's 2 cores) runs its waits polled this way.
 */
class WaitModeTest {
    @Test
    void pollAndBlockAreObeyedWhateverTheLibrary() {
        for (MpiAbi abi : MpiAbi.values()) {
            assertTrue(MpiSettings.polls("poll", abi, -1, 1, 8), abi.name());
            assertFalse(MpiSettings.polls("block", abi, 1, 16, 2), abi.name());
        }
    }

    @Test
    void autoPollsWithMpichOnlyWhenTheRanksOutnumberTheCoresOrYieldingWasAsked() {
        assertTrue(MpiSettings.polls("auto", MpiAbi.MPICH, -1, 5, 2), "5 ranks on 2 cores");
        assertFalse(MpiSettings.polls("auto", MpiAbi.MPICH, -1, 2, 2), "2 ranks on 2 cores");
        assertTrue(MpiSettings.polls("auto", MpiAbi.MPICH, 1, 1, 8), "a layered engine asked to yield");
        assertFalse(MpiSettings.polls("auto", MpiAbi.MPICH, 0, 16, 2), "a layered engine's bound node asked to spin");
        assertFalse(MpiSettings.polls("auto", MpiAbi.OPEN_MPI, -1, 16, 2), "Open MPI yields by mpi_yield_when_idle");
    }
}
