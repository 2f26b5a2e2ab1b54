package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.testkit.ConformanceMain;
import org.lpf4j.testkit.MpiJob;
import org.lpf4j.testkit.TwoHosts;

import java.time.Duration;
import java.util.List;

/**
 * The hybrid engine over two "hosts" ({@link TwoHosts}: two network namespaces joined by a veth
 * pair): one JVM per host with 4 threads, so every {@code exec(p)} with p &gt; 1 has threads on both
 * hosts and the leaders' MPI exchange crosses TCP. The whole conformance suite (every p); it took
 * 15 s here, so it runs in CI. Skipped, saying why, where namespaces cannot be made.
 */
@Timeout(900)
class TwoHostsTest {
    private static final List<String> HYBRID = List.of("-Dlpf.test.engine=hybrid", "-Dlpf.engine.hybrid.nodes=rank",
            "-Dlpf.engine.hybrid.threads=4", "-Dlpf.engine.hybrid.probeMillis=100", "-Dlpf.engine.threads.procs=4");

    @Test
    void conformanceSuitePassesOnTwoNodesOnTwoHosts() throws Exception {
        MpiJob.assertSuitePassed(TwoHosts.run(1, HYBRID, Duration.ofMinutes(8), ConformanceMain.class), 150);
    }
}
