package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.NetJob;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The end of a job whose JVMs hold several ranks each: rank 0's JVM ends only after its other
 * ranks have passed the STOP on down the command tree (to ranks of the other JVMs) and closed
 * their meshes, however late they run. Ending at once left those ranks' children to find rank 0's
 * JVM gone without a goodbye, and they failed the job (seen once in a whole {@code bin/test} run,
 * in {@code ScaleTest}).
 */
class JobEndTest {
    @Test
    void rankZerosJvmEndsAfterItsRanksPassedTheStopOn() throws Exception {
        NetJob.Ended ended = NetJob.runToEnd(16, 8, 100, List.of("-Dlpf.engine=net"), JobEndProgram.class.getName(), "300");
        String out = ended.output();
        assertEquals(0, ended.exitCode(), out);
        assertTrue(out.contains("SECTION ENDED"), out);
        assertFalse(out.contains("leaves the job"), out);
    }
}
