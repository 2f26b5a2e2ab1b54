package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.MpiJob;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code probe().levels()} on 2 JVMs × 2 threads ({@link LevelsMain}): node layout exact at the
 * root and in sections of 4 and 3 processes, figures positive and finite and equal on every
 * process; none on the threads engine. Prints the two levels' figures.
 */
class LevelsTest {
    private static final Pattern FIGURES = Pattern.compile("LEVELS 32768 B: .*intra \\(2 threads\\) g=(\\S+) .*inter \\(2 nodes\\) g=(\\S+) ");

    @Test
    void twoNodesOfTwoThreads() {
        MpiJob.Result r = MpiJob.openMpi().jvm("-Dlpf.engine.hybrid.nodes=rank", "-Dlpf.engine.hybrid.threads=2",
                "-Dlpf.engine.hybrid.probeMillis=60", "-Dlpf.engine.threads.procs=2")
                .run(2, Duration.ofMinutes(3), LevelsMain.class, "2");
        assertFalse(r.timedOut(), r::both);
        assertTrue(r.out().contains("LEVELS OK\n"), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "left behind: " + r.ghosts());
        Matcher m = FIGURES.matcher(r.out());
        assertTrue(m.find(), r::both);
        System.out.println(r.out().lines().filter(l -> l.startsWith("LEVELS")).reduce("", (a, b) -> a + b + "\n"));
        // Not asserted (timing on a loaded 2-core machine): inter-node g above intra-node g; printed for the report.
    }
}
