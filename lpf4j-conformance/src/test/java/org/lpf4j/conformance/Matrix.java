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
 * every test runs on it too: the proof that the kit is enough to write an engine.
 */
final class Matrix {
    private Matrix() {}

    static final int[] PROCS = {1, 2, 3, 4, 5, 8};

    /** @return (engine name, p) for every engine and every p */
    static Stream<Arguments> engineAndP() {
        List<Arguments> list = new ArrayList<>();
        for (EngineProvider e : org.lpf4j.spi.Engines.installed()) {
            for (int p : PROCS) list.add(Arguments.of(e.name(), p));
        }
        return list.stream();
    }

    /** @return (engine name, p) for p ≥ 2 only (tests that need a second process) */
    static Stream<Arguments> engineAndManyP() {
        return engineAndP().filter(a -> (int) a.get()[1] >= 2);
    }

    /** @return every engine name */
    static Stream<String> engines() {
        return org.lpf4j.spi.Engines.installed().stream().map(EngineProvider::name);
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
}
