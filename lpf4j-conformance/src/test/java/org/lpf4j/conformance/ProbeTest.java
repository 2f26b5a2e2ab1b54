package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Lpf;
import org.lpf4j.Machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** probe reports p, freeP and measured, positive, cached g and l per message size. */
@Timeout(120)
class ProbeTest {

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void probeInASectionReportsItsSizeAndMeasuredParameters(String engine, int p) {
        // Every process checks its own machine (processes may live in different JVMs).
        Matrix.exec(engine, p, ctx -> {
            Machine m = ctx.probe();
            long t0 = System.nanoTime();
            ctx.probe();
            long secondCallNanos = System.nanoTime() - t0;
            String at = "pid " + ctx.pid() + ": ";
            assertEquals(p, m.p(), at + "p");
            assertTrue(m.freeP() >= 1, at + "freeP");
            long[] sizes = m.messageSizes();
            assertTrue(sizes.length >= 2, at + "g and l are measured at several message sizes");
            for (long size : sizes) {
                assertTrue(m.g(size) > 0 && Double.isFinite(m.g(size)), at + "g(" + size + ") = " + m.g(size));
                assertTrue(m.l(size) > 0 && m.l(size) < 1.0, at + "l(" + size + ") = " + m.l(size));
            }
            // Real measurements: moving 1 MiB costs more than 1 ns and less than a second.
            double oneMiB = m.g(sizes[sizes.length - 1]) * (1 << 20);
            assertTrue(oneMiB > 1e-9 && oneMiB < 1.0, at + "1 MiB at g costs " + oneMiB + " s");
            // A second measurement takes the engine's probe budget (300-400 ms by default); a cached
            // answer took up to 12 ms with 8 processes on 2 loaded cores, two hosts apart.
            assertTrue(secondCallNanos < Matrix.wallClockBound(50_000_000L, p), at + "cached probe took " + secondCallNanos + " ns");
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.lpf4j.conformance.Matrix#engines")
    void theRootReportsTheWholeMachine(String engine) {
        Machine m = Lpf.root(engine).probe();
        int want = Math.min(8, Matrix.maxP());
        assertTrue(m.p() >= want, "the test build gives the engine " + want + " processors; probe says " + m.p());
        assertEquals(m.p(), m.freeP());
    }
}
