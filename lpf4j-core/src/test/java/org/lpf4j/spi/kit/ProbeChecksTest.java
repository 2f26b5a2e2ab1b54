package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Test;
import org.lpf4j.Machine;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The probe never reports a silent nonsense figure: each fit is checked (g plausible, l positive,
 * residual small), measured again while it fails, and then reported as bounds with a warning.
 */
class ProbeChecksTest {
    private static final int S = ProbeHarness.SIZES.length, H = ProbeHarness.H.length;

    /** Cells that follow T = l + g·h·m exactly. */
    private static ProbeHarness.Cells line(double l, double g) {
        double[][] t = new double[S][H];
        for (int s = 0; s < S; s++) {
            for (int k = 0; k < H; k++) t[s][k] = l + g * ProbeHarness.H[k] * ProbeHarness.SIZES[s];
        }
        return new ProbeHarness.Cells(t, l * 0.9);
    }

    /** The case seen under oversubscription: times that do not grow with the bytes, and jump around. */
    private static ProbeHarness.Cells scattered() {
        double[][] t = new double[S][H];
        double[] jumpy = {1.7e-3, 17e-6, 900e-6, 20e-6};
        for (int s = 0; s < S; s++) t[s] = jumpy.clone();
        return new ProbeHarness.Cells(t, 17e-6);
    }

    @Test
    void aGoodFitPassesAtOnce() {
        AtomicInteger measurements = new AtomicInteger();
        ProbeHarness.Fit fit = ProbeHarness.checkedFit(a -> { measurements.incrementAndGet(); return line(2e-6, 5e-10); });
        assertEquals(1, measurements.get());
        assertEquals(java.util.List.of(), fit.warnings());
        for (int s = 0; s < S; s++) {
            assertEquals(5e-10, fit.g()[s], 1e-15);
            assertEquals(2e-6, fit.l()[s], 1e-12);
        }
    }

    @Test
    void eachCheckNamesWhatFailed() {
        double[] x = {8, 16, 32, 64};
        assertTrue(ProbeHarness.fitSize(x, new double[]{1e-5, 1e-5, 1e-5, 1e-5}, 1e-6).problem().contains("faster than memory"));
        assertTrue(ProbeHarness.fitSize(x, new double[]{-1e-3, -1e-3 + 8, -1e-3 + 24, -1e-3 + 56}, 1e-6).problem()
                .contains("above"));
        assertTrue(ProbeHarness.fitSize(x, new double[]{2e-6, 9e-6, 3e-6, 12e-6}, 1e-7).problem().contains("scatter"));
        // an intercept of -30% of the mean is not noise; one of -1% is (l is then the empty superstep)
        assertTrue(ProbeHarness.fitSize(x, new double[]{1e-6, 9e-6, 25e-6, 57e-6}, 1e-7).problem().contains("negative"));
        ProbeHarness.SizeFit small = ProbeHarness.fitSize(x, new double[]{7.8e-6, 15.8e-6, 31.8e-6, 63.8e-6}, 1e-7);
        assertNull(small.problem());
        assertEquals(1e-7, small.l(), 1e-12);
        assertNull(ProbeHarness.fitSize(x, new double[]{1e-6 + 8e-9, 1e-6 + 16e-9, 1e-6 + 32e-9, 1e-6 + 64e-9}, 1e-7).problem());
    }

    @Test
    void aFailedFitIsMeasuredAgainAndUsedOnceItPasses() {
        AtomicInteger measurements = new AtomicInteger();
        ProbeHarness.Fit fit = ProbeHarness.checkedFit(a -> {
            measurements.incrementAndGet();
            return a == 0 ? scattered() : line(3e-6, 1e-9);
        });
        assertEquals(2, measurements.get());
        assertEquals(java.util.List.of(), fit.warnings());
        assertEquals(1e-9, fit.g()[1], 1e-15);
    }

    @Test
    void aFitThatNeverPassesIsReportedAsBoundsWithAWarning() {
        AtomicInteger measurements = new AtomicInteger();
        ProbeHarness.Fit fit = ProbeHarness.checkedFit(a -> { measurements.incrementAndGet(); return scattered(); });
        assertEquals(ProbeHarness.ATTEMPTS, measurements.get());
        assertEquals(S, fit.warnings().size(), fit.warnings().toString());
        assertTrue(fit.warnings().get(1).startsWith("128 B: unreliable after 3 measurements"), fit.warnings().get(1));
        for (int s = 0; s < S; s++) {
            assertTrue(fit.g()[s] >= ProbeHarness.G_MIN, "g is never below what memory can do");
            // the bound counts every second as transfer: at least the slowest cell's time per byte
            assertTrue(fit.g()[s] >= 1.7e-3 / ProbeHarness.SIZES[s] - 1e-18, "g bound at " + ProbeHarness.SIZES[s]);
            assertTrue(fit.l()[s] >= 17e-6, "l at least the empty superstep");
        }
        Machine m = new Machine(2, 2, fit.sizes(), fit.g(), fit.l()).withWarning(fit.warnings().getFirst());
        assertTrue(m.toString().contains("unreliable"), m.toString());
        assertEquals(1, m.warnings().size());
    }

    /** A program that probes (a Collectives object does) prints nothing: the warnings travel with the figures. */
    @Test
    void anUnreliableFitIsLoggedAtDebugOnlyAndNothingWhenReliable() {
        java.util.List<String> logged = new java.util.ArrayList<>();
        System.Logger recorder = new System.Logger() {
            @Override public String getName() { return "org.lpf4j.probe"; }

            @Override public boolean isLoggable(Level level) { return true; }

            @Override
            public void log(Level level, java.util.ResourceBundle bundle, String msg, Throwable thrown) {
                logged.add(level + " " + msg);
            }

            @Override
            public void log(Level level, java.util.ResourceBundle bundle, String format, Object... params) {
                logged.add(level + " " + format);
            }
        };
        ProbeHarness.report(2, ProbeHarness.checkedFit(a -> line(2e-6, 5e-10)), recorder);
        assertEquals(java.util.List.of(), logged);
        ProbeHarness.report(2, ProbeHarness.checkedFit(a -> scattered()), recorder);
        assertEquals(1, logged.size(), logged.toString());
        assertTrue(logged.getFirst().startsWith("DEBUG probe at p=2: 8 B: unreliable after 3 measurements"), logged.toString());
    }

    @Test
    void gAndLOfFewerProcessesAreCheckedAndDefaultToThePFigures() {
        Machine m = new Machine(4, 4, new long[]{8}, new double[]{2e-9}, new double[]{1e-6});
        assertEquals(2e-9, m.g(2, 8));
        assertEquals(1e-6, m.l(1, 8));
        assertThrows(IllegalArgumentException.class, () -> m.g(0, 8));
        assertThrows(IllegalArgumentException.class, () -> m.l(5, 8));
        assertEquals(5e-10, m.withSubsetG(2, new double[]{5e-10}).g(2, 8));
    }
}
