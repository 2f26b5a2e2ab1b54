package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Outside a launcher the hybrid engine is one node in this JVM of {@code lpf.engine.hybrid.threads}
 * processes: asking for more (lpf bench --procs) does not raise its threads (the README's rule:
 * lpf bench refuses, naming the parameter); under a launcher the launch sized the job.
 */
class SettingsForProcessesTest {
    @Test
    void theNodeIsNeverGrownBehindTheUsersBack() {
        HybridEngineProvider hybrid = new HybridEngineProvider();
        int size = hybrid.machineSize();
        assertEquals(Map.of(), hybrid.settingsForProcesses(size), "enough already");
        assertEquals(Map.of(), hybrid.settingsForProcesses(size + 3), "more than one node of its threads");
        assertEquals(Map.of(), hybrid.settingsForProcesses(1), "fewer");
    }
}
