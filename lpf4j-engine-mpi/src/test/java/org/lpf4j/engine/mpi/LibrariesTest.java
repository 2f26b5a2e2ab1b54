package org.lpf4j.engine.mpi;

import org.lpf4j.testkit.ConformanceMain;
import org.lpf4j.testkit.MpiJob;
import org.junit.jupiter.api.Test;

import java.time.Duration;


/**
 * The BSMP, BSPlib and collectives test suites (their own tests, unchanged) on the MPI engine, in one
 * 8-rank Open MPI job each, in every run (about a minute each on 2 cores). The collectives suite
 * runs whole: its SPMD functions capture only serializable state and set parameters in every
 * process, so the same test code serves engines of one JVM and of many.
 */
class LibrariesTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    @Test
    void bsmpSuiteOnEightRanks() {
        // Excluded: a threads-engine test (ThreadsEngine.root() under the debug layer) whose report
        // names pid 0's or pid 1's call site, whichever the debug layer sees first (flaky under load).
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.engine=mpi", "-Dlpf.test.exclude=.*aMisuseInsideBsmpIsReportedAtTheCallersLine.*")
                .run(8, TIMEOUT, ConformanceMain.class, "package:org.lpf4j.bsmp"), 100);
    }

    /**
     * BSPlib's suite (its own tests, unchanged) and the BSPlib examples' test ({@code lpf4j-examples}):
     * every {@code exec(p)}, p = 1 … 8, on the first p ranks.
     */
    @Test
    void bsplibSuiteOnEightRanks() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.engine=mpi")
                .run(8, TIMEOUT, ConformanceMain.class, "package:org.lpf4j.bsplib", "package:org.lpf4j.examples.bsplib"), 100);
    }

    @Test
    void collectivesSuiteOnEightRanks() {
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.engine=mpi")
                .run(8, TIMEOUT, ConformanceMain.class, "package:org.lpf4j.coll"), 100);
    }
}
