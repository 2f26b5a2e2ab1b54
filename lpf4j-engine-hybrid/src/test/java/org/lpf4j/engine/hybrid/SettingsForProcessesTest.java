package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.lpf4j.engine.threads.kit.DisseminationBarrier;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Outside a launcher the hybrid engine is one node in this JVM: asking for more processes than it
 * has (lpf bench --procs, lpf probe) raises its threads per node, as the threads engine raises its
 * machine size; never beyond what the node barrier takes, and never when a launcher sized the job.
 */
class SettingsForProcessesTest {
    @Test
    void oneNodeOutsideALauncherGrowsItsThreads() {
        HybridEngineProvider hybrid = new HybridEngineProvider();
        assumeTrue(hybrid.launcher().isPresent(), "needs an MPI launcher installed and this JVM not launched by one");
        int size = hybrid.machineSize();
        assertEquals(Map.of(), hybrid.settingsForProcesses(size), "enough already");
        assertEquals(Map.of(HybridEngine.THREADS.key(), Integer.toString(size + 3)), hybrid.settingsForProcesses(size + 3));
        assertEquals(Map.of(), hybrid.settingsForProcesses(DisseminationBarrier.MAX_PARTIES + 1),
                "beyond the node barrier: left to the caller's refusal");
    }
}
