package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.testkit.ConformanceMain;
import org.lpf4j.testkit.MpiJob;
import org.lpf4j.testkit.TwoHosts;

import java.time.Duration;
import java.util.List;

/**
 * The MPI engine over two "hosts" ({@link TwoHosts}: two network namespaces joined by a veth
 * pair), 8 ranks, 4 in each, so every {@code exec(p)} with p &gt; 4 crosses TCP. In CI a short
 * version runs two conformance classes (DRMA and write conflicts, every p); the whole suite runs
 * behind {@code -Dlpf.test.netns=true}. Skipped, saying why, where namespaces cannot be made.
 */
@Timeout(900)
class TwoHostsTest {
    @Test
    void drmaAndWriteConflictsPassOnAJobSpreadOverTwoHosts() throws Exception {
        MpiJob.assertSuitePassed(TwoHosts.run(4, List.of(), Duration.ofMinutes(5), ConformanceMain.class,
                "org.lpf4j.conformance.DrmaTest", "org.lpf4j.conformance.WriteConflictTest"), 20);
    }

    @Test
    void conformanceSuitePassesOnAJobSpreadOverTwoHosts() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("lpf.test.netns"),
                "the whole suite over two hosts is not asked for: run with -Dlpf.test.netns=true");
        MpiJob.assertSuitePassed(TwoHosts.run(4, List.of(), Duration.ofMinutes(10), ConformanceMain.class), 150);
    }
}
