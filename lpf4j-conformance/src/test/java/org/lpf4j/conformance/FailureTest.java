package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The failure state: a process that returns early or throws makes every other process's next
 * sync throw FatalException within a bounded time (never a hang), and exec throws
 * FatalException carrying the cause; pid 0's output is still delivered.
 */
@Timeout(60)
class FailureTest {

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndManyP")
    void aProcessThatReturnsEarlyFailsTheOthersNextSync(String engine, int p) {
        int quitter = p - 1;
        long start = System.nanoTime();
        FatalException e = assertThrows(FatalException.class, () -> Lpf.root(engine).exec(p, ctx -> {
            // Everyone, the quitter included, makes this sync: it must succeed everywhere, however
            // quickly the quitter returns afterwards.
            ctx.sync();
            if (ctx.pid() == quitter) return;
            try {
                ctx.sync();
                throw new AssertionError("pid " + ctx.pid() + " passed a sync the quitter never made");
            } catch (FatalException f) {
                // Every other process got FatalException from its sync (checked in each process:
                // they may live in different JVMs), and the failure state persists.
                try {
                    ctx.sync();
                    throw new AssertionError("pid " + ctx.pid() + ": a later sync passed after the failure");
                } catch (FatalException again) {
                    // the failure state persists
                }
                throw f;
            }
        }));
        assertTrue(System.nanoTime() - start < Matrix.wallClockBound(10_000_000_000L, p), "failure took too long to surface");
        Matrix.rethrowAssertions(e);
        if (Lpf.DEBUG.get()) {
            // A programming error the debug layer reports, naming the sync the quitter never made.
            var report = assertInstanceOf(org.lpf4j.debug.LpfProgrammingError.class, e);
            assertEquals(org.lpf4j.debug.Check.UNEQUAL_SYNCS, report.check(), report.getMessage());
        } else {
            assertNull(e.getCause(), "nobody threw: there is no cause");
        }
        assertTrue(e.getMessage().contains("returned"), e.getMessage());
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void aThrowingProcessFailsTheSectionAndExecCarriesTheCause(String engine, int p) {
        IllegalStateException boom = new IllegalStateException("boom at the last pid");
        MemorySegment output = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 1);
        FatalException e = assertThrows(FatalException.class, () -> Lpf.root(engine).exec(p, ctx -> {
            if (ctx.pid() == 0) ctx.args().output().set(ValueLayout.JAVA_INT, 0, 4711);
            if (ctx.pid() == p - 1) throw boom;
            try {
                for (int i = 0; i < 1000; i++) ctx.sync();
                throw new AssertionError("1000 syncs passed after a process threw");
            } catch (FatalException f) {
                // every other process gets FatalException from a sync
            }
        }, Args.of(MemorySegment.NULL, output)));
        Matrix.rethrowAssertions(e);
        Matrix.assertSameFailure(boom, e.getCause());
        assertEquals(4711, output.get(ValueLayout.JAVA_INT, 0), "pid 0's output is delivered after a failure");
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndManyP")
    void processesBlockedInADeepSyncAreReleased(String engine, int p) {
        // All but pid 0 wait in a sync while pid 0 throws after a while: they must be woken.
        FatalException e = assertThrows(FatalException.class, () -> Lpf.root(engine).exec(p, ctx -> {
            if (ctx.pid() == 0) {
                Thread.sleep(200);
                throw new UnsupportedOperationException("late failure");
            }
            ctx.sync();
        }));
        assertInstanceOf(UnsupportedOperationException.class, e.getCause());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.lpf4j.conformance.Matrix#engines")
    void severalThrowersAreAllReported(String engine) {
        FatalException e = assertThrows(FatalException.class, () -> Lpf.root(engine).exec(4, ctx -> {
            throw new RuntimeException("from pid " + ctx.pid());
        }));
        assertTrue(e.getCause().getMessage().startsWith("from pid "));
        assertEquals(3, e.getSuppressed().length, "the other three causes are suppressed");
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndManyP")
    void equalSyncCountsNeverFailHoweverStaggeredTheReturns(String engine, int p) {
        // Processes leave at different times after the same number of syncs: no failure state.
        for (int round = 0; round < 20; round++) {
            final int r = round;
            Lpf.root(engine).exec(p, ctx -> {
                for (int i = 0; i < 5; i++) ctx.sync();
                if ((ctx.pid() + r) % 3 == 0) Thread.sleep(0, 200_000);
            });
        }
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndManyP")
    void aProcessThatThrowsInsteadOfCallingRehookFailsTheRehook(String engine, int p) {
        FatalException e = assertThrows(FatalException.class, () -> Lpf.root(engine).exec(p, ctx -> {
            if (ctx.pid() == p - 1) throw new IllegalStateException("no rehook for me");
            try {
                ctx.rehook(inner -> {
                    inner.sync();
                    inner.sync();
                }, Args.NONE);
                throw new AssertionError("pid " + ctx.pid() + ": every process inside the rehook gets FatalException");
            } catch (FatalException f) {
                // expected in every process
            }
        }));
        Matrix.rethrowAssertions(e);
        assertInstanceOf(IllegalStateException.class, e.getCause());
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndManyP")
    void aProcessThatReturnsInsteadOfCallingRehookFailsTheRehook(String engine, int p) {
        FatalException e = assertThrows(FatalException.class, () -> Lpf.root(engine).exec(p, ctx -> {
            if (ctx.pid() == 0) return;
            try {
                ctx.rehook(inner -> { }, Args.NONE); // even a child that never syncs
                throw new AssertionError("pid " + ctx.pid() + ": rehook passed although pid 0 returned");
            } catch (FatalException f) {
                // expected in every process
            }
        }));
        Matrix.rethrowAssertions(e);
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndManyP")
    void rehookOnOneProcessAndSyncOnTheOthersFailsBothSides(String engine, int p) {
        for (boolean childSyncs : new boolean[] {true, false}) {
            FatalException e = assertThrows(FatalException.class, () -> Lpf.root(engine).exec(p, ctx -> {
                try {
                    if (ctx.pid() == 0) {
                        ctx.rehook(inner -> {
                            if (childSyncs) inner.sync();
                        }, Args.NONE);
                    } else {
                        ctx.sync();
                    }
                    throw new AssertionError("pid " + ctx.pid() + ": both sides fail (child syncs: " + childSyncs + ")");
                } catch (FatalException f) {
                    // expected in every process
                }
            }));
            Matrix.rethrowAssertions(e);
        }
    }

    /**
     * Requests addressed to a process that ends (returns, or rehooks while the others sync) do not
     * outlive the failed section: every sync throws FatalException within the time bound, and the
     * engine then runs a correct section whose results are exact. The puts cover one small
     * payload, many small ones and one of 8 KiB (engines that send a destination's requests as one
     * stream split long streams; MPI sends them before the sync's round).
     */
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndManyP")
    void requestsToAProcessThatEndsDoNotOutliveTheSection(String engine, int p) {
        for (boolean rehooks : new boolean[] {false, true}) {
            int leaver = p - 1;
            long start = System.nanoTime();
            FatalException e = assertThrows(FatalException.class, () -> Lpf.root(engine).exec(p, ctx -> {
                MemorySegment src = Arena.ofAuto().allocate(16 * 1024), dst = Arena.ofAuto().allocate(16 * 1024);
                ctx.resizeMemoryRegister(2);
                ctx.resizeMessageQueue(600L * ctx.nprocs());
                ctx.sync();
                var s = ctx.registerGlobal(src);
                var d = ctx.registerGlobal(dst);
                ctx.sync();
                if (ctx.pid() == leaver) {
                    ctx.deregister(s);
                    ctx.deregister(d);
                    if (rehooks) ctx.rehook(inner -> { }, Args.NONE);
                    return;
                }
                for (int q = 0; q < ctx.nprocs(); q++) {
                    ctx.put(s, 0, q, d, 0, 8);
                    for (int k = 0; k < 500; k++) ctx.put(s, 8L * k, q, d, 8L * k, 8);
                    ctx.put(s, 0, q, d, 0, 8192);
                }
                ctx.sync();
                throw new AssertionError("pid " + ctx.pid() + " passed a sync pid " + leaver + " never made");
            }));
            assertTrue(System.nanoTime() - start < Matrix.wallClockBound(10_000_000_000L, p), "failure took too long to surface");
            Matrix.rethrowAssertions(e);
            assertTrue(e.getMessage().toLowerCase(java.util.Locale.ROOT).contains(rehooks ? "rehook" : "returned"), e.getMessage());
            Matrix.exec(engine, p, ctx -> {
                MemorySegment mine = Arena.ofAuto().allocate(8), got = Arena.ofAuto().allocate(8);
                mine.set(ValueLayout.JAVA_LONG, 0, 1000L + ctx.pid());
                ctx.resizeMemoryRegister(2);
                ctx.resizeMessageQueue(1);
                ctx.sync();
                var s = ctx.registerGlobal(mine);
                var d = ctx.registerGlobal(got);
                ctx.sync();
                ctx.put(s, 0, (ctx.pid() + 1) % ctx.nprocs(), d, 0, 8);
                ctx.sync();
                assertEquals(1000L + (ctx.pid() + ctx.nprocs() - 1) % ctx.nprocs(), got.get(ValueLayout.JAVA_LONG, 0),
                        "pid " + ctx.pid() + " after a failed section (rehook: " + rehooks + ")");
                ctx.deregister(s);
                ctx.deregister(d);
            });
        }
    }
}
