package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.testkit.NetJob;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which {@code cr} module the processes of a job across JVMs select: rank 0's
 * {@code Parameters.set} before its {@code exec} reaches every process, its clearing too, and a
 * JVM whose own settings differ makes {@code Checkpoints.init} refuse, naming the modules, rather
 * than fail the section later without a reason ({@link CheckpointModulesProgram}; 3 JVMs).
 */
class CheckpointModulesTest {
    @Test
    @Timeout(120)
    void theProcessesSelectRankZerosModuleAndADifferentOneIsRefusedByName() throws Exception {
        String out = NetJob.run(3, 1, 100, List.of("-Dlpf.engine=net"), CheckpointModulesProgram.class.getName());
        assertTrue(out.contains("MISMATCH ") && out.contains("the processes selected different cr modules: pid 0 'none', pid 2"
                + " 'memory'"), out);
        assertTrue(out.contains("RANK ZERO'S SETTING HELD AT EVERY PROCESS"), out);
        assertTrue(out.contains("RANK ZERO'S CLEARING HELD AT EVERY PROCESS"), out);
    }
}
