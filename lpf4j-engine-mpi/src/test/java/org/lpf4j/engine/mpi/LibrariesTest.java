package org.lpf4j.engine.mpi;

import org.lpf4j.testkit.ConformanceMain;
import org.lpf4j.testkit.MpiJob;
import org.junit.jupiter.api.Test;

import java.time.Duration;


/**
 * The BSMP, BSPlib and collectives test suites (their own tests, unchanged) and the BSPlib
 * examples' test ({@code lpf4j-examples}) on the MPI engine, in one 8-rank Open MPI job, in every
 * run: every {@code exec(p)}, p = 1 … 8, on the first p ranks. The collectives suite runs whole:
 * its SPMD functions capture only serializable state and set parameters in every process, so the
 * same test code serves engines of one JVM and of many. (One job rather than one per library: each
 * start of 8 JVMs under mpirun costs seconds on 2 cores.)
 */
class LibrariesTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(15);

    @Test
    void theLibrarySuitesOnEightRanks() {
        // Excluded: a threads-engine test (ThreadsEngine.root() under the debug layer) whose report
        // names pid 0's or pid 1's call site, whichever the debug layer sees first (flaky under load).
        MpiJob.assertSuitePassed(MpiJob.openMpi().jvm("-Dlpf.engine=mpi", "-Dlpf.test.exclude=.*aMisuseInsideBsmpIsReportedAtTheCallersLine.*")
                .run(8, TIMEOUT, ConformanceMain.class, "package:org.lpf4j.coll", "package:org.lpf4j.bsmp", "package:org.lpf4j.bsplib",
                        "package:org.lpf4j.examples.bsplib"), 300);
    }
}
