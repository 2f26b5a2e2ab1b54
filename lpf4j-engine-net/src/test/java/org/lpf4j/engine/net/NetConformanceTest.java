package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.testkit.NetJob;

import java.util.ArrayList;
import java.util.List;

/**
 * The whole conformance suite on the net engine with real JVMs: {@link NetLaunch} starts 8 JVMs
 * (tcp boot on loopback, a mesh of authenticated connections), rank 0 runs the suite
 * ({@code ConformanceMain}, limited to the {@code net} engine), so every {@code exec(p)},
 * p = 1, 2, 3, 4, 5, 8, runs on p JVMs; a second job of 4 JVMs runs it with the debug layer on;
 * one job of 8 processes as 2 JVMs of 4 runs the suites of the collectives, BSMP and BSPlib, unchanged, and one of 4
 * JVMs of 2 the checkpoint module's suite; one of 3 JVMs
 * runs {@code GrowingCapacityTest} with {@code lpf.capacity=grow} on every JVM.
 * ({@link NetJob}: bounded in time, the job's process tree killed in {@code finally}, no JVM of it
 * left afterwards.)
 */
@Timeout(900)
class NetConformanceTest {
    private static String job(int jvms, List<String> options, String... suites) throws Exception {
        List<String> all = new ArrayList<>(List.of("-Dlpf.engine=net", "-Dlpf.test.engine=net"));
        all.addAll(options);
        return NetJob.run(jvms, all, NetJob.CONFORMANCE_MAIN, suites);
    }

    private static void assertPassed(String out, int atLeast) { NetJob.assertSuitePassed(out, atLeast); }

    @Test
    void theSuiteOnEightJvms() throws Exception {
        assertPassed(job(8, List.of()), 150);
    }

    @Test
    void theSuiteOnFourJvmsWithTheDebugLayer() throws Exception {
        assertPassed(job(4, List.of("-Dlpf.debug=true", "-Dlpf.conformance.maxP=4")), 90);
    }

    @Test
    void theGrowModeOnThreeJvms() throws Exception {
        assertPassed(job(3, List.of("-Dlpf.capacity=grow", "-Dlpf.conformance.maxP=3"),
                "org.lpf4j.conformance.GrowingCapacityTest"), 3);
    }

    /**
     * The checkpoint module's suite at p = 1 .. 8 as 4 JVMs of 2 ranks, unchanged: its programs'
     * settings ({@code Parameters.set("lpf.cr", "files")} in rank 0's JVM) reach every rank with
     * the section, and its jobs keep what the tests check in files. Left out, and the run prints
     * it: {@code CheckpointEventTest}, which reads a JFR recording of the caller's JVM
     * ({@code ConformanceMain.CALLERS_JVM}).
     */
    @Test
    void theCheckpointSuiteOnFourJvmsOfTwo() throws Exception {
        List<String> all = List.of("-Dlpf.engine=net", "-Dlpf.test.engine=net");
        assertPassed(NetJob.run(8, 2, 600, all, NetJob.CONFORMANCE_MAIN, "package:org.lpf4j.cr"), 45);
    }

    /**
     * The libraries at p = 8 as 2 JVMs of 4 ranks: each section mixes the paths, rings in a JVM's
     * memory between ranks of one JVM and rings in a file between the two (8 JVMs on 2 cores took
     * a minute more; the core suite above runs on 8 real JVMs).
     */
    @Test
    void theLibrarySuitesOnTwoJvmsOfFour() throws Exception {
        List<String> all = List.of("-Dlpf.engine=net", "-Dlpf.test.engine=net");
        assertPassed(NetJob.run(8, 4, 600, all, NetJob.CONFORMANCE_MAIN, "package:org.lpf4j.coll", "package:org.lpf4j.bsmp",
                "package:org.lpf4j.bsplib"), 300);
    }
}
