package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What Slurm's environment means (the variables as Slurm 22.05 sets them, copied from salloc's
 * shell, a batch script and a task of srun), and how srun's list of MPI plugins is read. Needs no
 * Slurm: {@code SlurmRunTest} in lpf4j-tools runs a real one.
 */
class SlurmTest {
    private static final Map<String, String> SALLOC = Map.of("SLURM_JOB_ID", "7", "SLURM_NTASKS", "4", "SLURM_NPROCS", "4",
            "SLURM_JOB_NUM_NODES", "1", "SLURM_TASKS_PER_NODE", "4");
    private static final Map<String, String> BATCH = Map.of("SLURM_JOB_ID", "8", "SLURM_NTASKS", "4", "SLURM_PROCID", "0",
            "SLURM_LOCALID", "0");
    private static final Map<String, String> TASK = Map.of("SLURM_JOB_ID", "9", "SLURM_NTASKS", "2", "SLURM_PROCID", "1",
            "SLURM_STEP_ID", "0", "SLURM_STEPID", "0", "SLURM_STEP_NUM_TASKS", "2", "SLURM_LOCALID", "1");

    @Test
    void anAllocationAndTheBatchStepAreNoTasksOfAStep() {
        assertTrue(Slurm.allocation(SALLOC::get));
        assertFalse(Slurm.stepTask(SALLOC::get));
        assertTrue(Slurm.allocation(BATCH::get), "the batch step has SLURM_PROCID=0 but no step id");
        assertFalse(Slurm.stepTask(BATCH::get));
        assertTrue(Slurm.stepTask(TASK::get));
        assertFalse(Slurm.allocation(TASK::get));
        assertFalse(Slurm.allocation(Map.<String, String>of()::get));
        assertFalse(Slurm.singleTaskStep(TASK::get));
        Map<String, String> shell = new java.util.HashMap<>(TASK); // srun --pty bash
        shell.putAll(Map.of("SLURM_STEP_NUM_TASKS", "1", "SLURM_PROCID", "0"));
        assertTrue(Slurm.singleTaskStep(shell::get));
    }

    @Test
    void srunsPluginListIsRead() {
        String text = "MPI plugin types are...\n\tpmix\n\tnone\n\tcray_shasta\n\tpmi2\nspecific pmix plugin versions available: pmix_v4\n";
        assertEquals(List.of("pmix", "none", "cray_shasta", "pmi2"), Slurm.parsePlugins(text));
        assertEquals(List.of("none", "pmi2"), Slurm.parsePlugins("srun: MPI types are...\nsrun: none\nsrun: pmi2\n"));
        assertEquals(List.of(), Slurm.parsePlugins(""));
    }

    /** srun's command: the plugin, a dead task ends the step, -n, -N from launchNodes, and Open MPI told to yield when oversubscribed. */
}
