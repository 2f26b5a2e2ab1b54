package org.lpf4j.engine.mpi;

import org.lpf4j.engine.mpi.testing.MpiJob;
import org.lpf4j.engine.mpi.testing.ConformanceMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole conformance suite ({@code lpf4j-conformance}, unchanged in what it asserts) on the MPI
 * engine: one MPI job of 8 ranks (oversubscribed on 2 cores) whose rank 0 runs the suite
 * ({@link ConformanceMain}), so every {@code exec(p)}, p = 1, 2, 3, 4, 5, 8, runs on real processes.
 * Open MPI always; MPICH with {@code -Dlpf.test.long=true}.
 */
class ConformanceTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(10);
    private static final Pattern SUMMARY = Pattern.compile("CONFORMANCE tests=(\\d+) succeeded=(\\d+) failed=(\\d+)");

    @Test
    void openMpiEightRanks() {
        check(MpiJob.openMpi().run(8, TIMEOUT, ConformanceMain.class));
    }

    @Test
    @EnabledIfSystemProperty(named = "lpf.test.long", matches = "true")
    void mpichEightRanks() {
        check(MpiJob.mpich().run(8, TIMEOUT, ConformanceMain.class));
    }

    private static void check(MpiJob.Result r) {
        assertFalse(r.timedOut(), r::both);
        Matcher m = SUMMARY.matcher(r.out());
        assertTrue(m.find(), () -> "no summary line: " + r.both());
        StringBuilder failures = new StringBuilder();
        r.out().lines().filter(l -> l.startsWith("FAILED ")).forEach(l -> failures.append(l).append('\n'));
        assertEquals("0", m.group(3), () -> m.group(0) + "\n" + failures + r.both());
        assertTrue(Integer.parseInt(m.group(1)) >= 150, () -> "too few tests found: " + m.group(0));
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }
}
