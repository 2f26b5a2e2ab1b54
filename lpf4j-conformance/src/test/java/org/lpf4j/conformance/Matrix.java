package org.lpf4j.conformance;

import org.junit.jupiter.params.provider.Arguments;
import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;
import org.lpf4j.spi.EngineProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The test matrix of the conformance suite: every installed engine (found by ServiceLoader, so
 * an engine module that puts itself on the test class path runs the same suite) × the process
 * counts 1, 2, 3, 4, 5, 8. The engine's machine size must allow 8 processes (the build sets
 * {@code lpf.engine.threads.procs=8} for tests). This test tree installs its own engine,
 * {@link org.lpf4j.conformance.simple.SimpleEngine} (written only against the engine kit), so
 * every test runs on it too: the proof that the kit is enough to write an engine. The system property
 * {@code lpf.conformance.engines} (a comma-separated list) limits the engines, e.g. to {@code mpi}
 * when the suite runs inside an MPI job, and {@code lpf.conformance.maxP} the process counts;
 * {@code lpf.test.procs} replaces them (the scale tests: {@code 64}).
 */
final class Matrix {
    private Matrix() {}

    static final int[] PROCS = procs("lpf.test.procs", new int[] {1, 2, 3, 4, 5, 8});

    /**
     * @return the process counts a system property lists (comma-separated; {@code lpf.test.procs=64}
     *         runs the matrix at p = 64 only, as the scale tests do), else {@code defaults}
     */
    static int[] procs(String property, int[] defaults) {
        String s = System.getProperty(property, "").strip();
        return s.isEmpty() ? defaults : java.util.Arrays.stream(s.split("\\s*,\\s*")).mapToInt(Integer::parseInt).toArray();
    }

    /** @return (engine name, p) for every engine and every p */
    static Stream<Arguments> engineAndP() {
        List<Arguments> list = new ArrayList<>();
        for (String e : engines().toList()) {
            for (int p : PROCS) if (p <= maxP()) list.add(Arguments.of(e, p));
        }
        return list.stream();
    }

    /**
     * @return the system property {@code lpf.conformance.maxP} (default: no limit): a run on a
     *         machine of fewer than 8 processes (an MPI job of few ranks) keeps the counts that fit
     */
    static int maxP() {
        return Integer.getInteger("lpf.conformance.maxP", Integer.MAX_VALUE);
    }

    /**
     * @return a wall-clock bound of the suite, {@code nanos}, set for at most 8 processes on a
     *         machine of 2 cores, for {@code p} processes: above 8 each process waits its turn for a
     *         core, so the bound grows as p / 8 (the scale tests run p = 64 and 256 on 2 cores)
     */
    static long wallClockBound(long nanos, int p) {
        return nanos * Math.max(1, (p + 7) / 8);
    }

    /** @return (engine name, p) for p ≥ 2 only (tests that need a second process) */
    static Stream<Arguments> engineAndManyP() {
        return engineAndP().filter(a -> (int) a.get()[1] >= 2);
    }

    /** @return every engine name */
    static Stream<String> engines() {
        String only = System.getProperty("lpf.conformance.engines", "").strip();
        List<String> wanted = only.isEmpty() ? List.of() : List.of(only.split("\\s*,\\s*"));
        return org.lpf4j.spi.Engines.installed().stream().map(EngineProvider::name)
                .filter(n -> wanted.isEmpty() || wanted.contains(n));
    }

    /**
     * Runs {@code spmd} on exactly {@code p} processes of {@code engine}; an assertion that failed
     * in any process is rethrown as itself so that JUnit shows it.
     */
    static void exec(String engine, int p, Spmd spmd, Args args) {
        Context root = Lpf.root(engine);
        try {
            root.exec(p, ctx -> {
                if (ctx.nprocs() != p) throw new AssertionError("asked for " + p + " processes, got " + ctx.nprocs());
                spmd.run(ctx);
            }, args);
        } catch (FatalException e) {
            if (e.getCause() instanceof AssertionError a) {
                a.addSuppressed(e);
                throw a;
            }
            throw e;
        }
    }

    static void exec(String engine, int p, Spmd spmd) {
        exec(engine, p, spmd, Args.NONE);
    }

    /**
     * Rethrows the first {@link AssertionError} a process threw in a failed section (as the cause or
     * a suppressed cause of {@code e}). Failure tests assert inside each process, because the
     * processes of a multi-process engine share no memory; this makes such an assertion fail the test
     * even when another exception is the section's first cause.
     *
     * @return {@code e}, if no process failed an assertion
     */
    static FatalException rethrowAssertions(FatalException e) {
        if (e.getCause() instanceof AssertionError a) {
            a.addSuppressed(e);
            throw a;
        }
        for (Throwable t : e.getSuppressed()) {
            if (t instanceof AssertionError a) {
                a.addSuppressed(e);
                throw a;
            }
        }
        return e;
    }

    /**
     * Asserts that {@code actual} is {@code expected}, or, when the process that threw it lives in
     * another JVM, its copy: same class, same message.
     */
    static void assertSameFailure(Throwable expected, Throwable actual) {
        if (actual == expected) return;
        org.junit.jupiter.api.Assertions.assertNotNull(actual, "no cause, expected " + expected);
        org.junit.jupiter.api.Assertions.assertEquals(expected.getClass(), actual.getClass(), "cause " + actual);
        org.junit.jupiter.api.Assertions.assertEquals(expected.getMessage(), actual.getMessage(), "cause " + actual);
    }
}
