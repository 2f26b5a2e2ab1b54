package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.NetJob;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank that runs as a thread of a JVM of several ({@code lpf.engine.net.perJvm}) and dies of an
 * error outside any section ends its JVM, as a rank of its own JVM would: the job fails at once,
 * not when the others' sync deadline (120 s here) passes.
 */
class RankThreadErrorTest {
    @Test
    void aRankThreadThatDiesOfAnErrorEndsItsJvmAndTheJob() throws Exception {
        long t0 = System.nanoTime();
        NetJob.Ended ended = NetJob.runToEnd(8, 4, 100, List.of("-Dlpf.engine=net"), RankThreadErrorProgram.class.getName());
        long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
        String out = ended.output();
        assertNotEquals(0, ended.exitCode(), out);
        assertTrue(out.contains("rank 1 failed, ending its JVM: java.lang.AssertionError: a test's error on rank 1's thread"), out);
        assertFalse(out.contains("SECTION ENDED"), out);
        assertTrue(seconds < 60, "the job took " + seconds + " s to fail:\n" + out);
    }
}
