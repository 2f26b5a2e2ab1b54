package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.MpiJob;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Puts and gets around a ring at p = 1..6 on 2 JVMs × 3 threads (each JVM a node of its own). */
class SmokeTest {
    @Test
    void ringOnTwoNodesOfThreeThreads() {
        MpiJob.Result r = MpiJob.openMpi().jvm("-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=3",
                "-Dlpf.engine.hybrid.probeMillis=50").run(2, Duration.ofMinutes(2), SmokeMain.class);
        assertFalse(r.timedOut(), r::both);
        for (int p = 1; p <= 6; p++) assertTrue(r.out().contains("SMOKE OK p=" + p + "\n"), r.both());
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "left behind: " + r.ghosts());
    }
}
