package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Slurm's local rank and tasks per node, as srun gives them to a task. */
class LaunchedHostTest {
    private static int[] of(String localId, String nodeId, String perNode) {
        return LaunchedHost.slurmLocalRank(Map.of("SLURM_LOCALID", localId, "SLURM_NODEID", nodeId,
                "SLURM_STEP_TASKS_PER_NODE", perNode)::get);
    }

    @Test
    void tasksPerNodeIsReadAtThisNode() {
        assertArrayEquals(new int[] {3, 4}, of("3", "0", "4"));
        assertArrayEquals(new int[] {1, 2}, of("1", "2", "2(x3),1"));
        assertArrayEquals(new int[] {0, 1}, of("0", "3", "2(x3),1"));
        assertNull(of("0", "4", "2(x3),1"));
        assertNull(of("0", "0", "two"));
        assertNull(LaunchedHost.slurmLocalRank(Map.of("SLURM_LOCALID", "0")::get), "outside a step");
    }
}
