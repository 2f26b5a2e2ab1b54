package org.lpf4j.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The local FFT kernel against the plain O(m²) DFT, written here from the definition: every
 * length 2^0 … 2^12 (odd and even log2 m, so both the radix-2 first stage and the all-radix-4
 * path, and every split m = m1·m2 of the four-step form), both directions, all three call forms
 * (in place, out of place, out of place with a twist), the batch form, and long lengths at
 * sampled frequencies.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LocalFftTest {

    /** X[k] = Σ_j x[j]·e^{sign·2πi·jk/m}, unscaled. */
    private static double[] naive(double[] x, int sign) {
        int m = x.length / 2;
        double[] out = new double[2 * m];
        for (int k = 0; k < m; k++) {
            double re = 0, im = 0;
            for (int j = 0; j < m; j++) {
                double angle = sign * 2 * Math.PI * ((long) j * k % m) / m;
                double c = Math.cos(angle), s = Math.sin(angle);
                re += x[2 * j] * c - x[2 * j + 1] * s;
                im += x[2 * j] * s + x[2 * j + 1] * c;
            }
            out[2 * k] = re;
            out[2 * k + 1] = im;
        }
        return out;
    }

    private static double[] random(int m, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] x = new double[2 * m];
        for (int i = 0; i < x.length; i++) x[i] = 2 * r.nextDouble() - 1;
        return x;
    }

    /** Tolerance for length m: the DFT's own rounding grows like m, the FFT's like log m. */
    private static double tol(int m) { return 1e-13 * m + 1e-14; }

    private static void assertClose(double[] want, double[] got, int from, double tol, String what) {
        for (int i = 0; i < want.length; i++) assertEquals(want[i], got[from + i], tol, what + " at " + i);
    }

    @Test
    void forwardMatchesTheDftAtEveryLengthUpTo4096() {
        for (int bits = 0; bits <= 12; bits++) {
            int m = 1 << bits;
            double[] x = random(m, bits);
            double[] want = naive(x, -1);
            LocalFft plan = new LocalFft(m);
            double[] inPlace = x.clone();
            plan.forward(inPlace, 0);
            assertClose(want, inPlace, 0, tol(m), "in place, m=" + m);
            plan.forward(inPlace = x.clone(), 0); // the plan is reusable
            assertClose(want, inPlace, 0, tol(m), "again, m=" + m);
            // out of place, at offsets inside larger arrays
            double[] src = new double[2 * (m + 3)], dst = new double[2 * (m + 6)];
            System.arraycopy(x, 0, src, 6, 2 * m);
            plan.forward(src, 3, dst, 5);
            assertClose(want, dst, 10, tol(m), "out of place, m=" + m);
            for (int i : new int[] {0, 9, 10 + 2 * m, 11 + 2 * m}) assertEquals(0.0, dst[i], "outside the output");
        }
    }

    @Test
    void inverseMatchesTheInverseDftAndUndoesForward() {
        for (int bits = 0; bits <= 12; bits++) {
            int m = 1 << bits;
            double[] x = random(m, 100 + bits);
            double[] want = naive(x, +1);
            for (int i = 0; i < want.length; i++) want[i] /= m;
            LocalFft plan = new LocalFft(m);
            double[] y = x.clone();
            plan.inverse(y, 0);
            assertClose(want, y, 0, tol(m) / m + 1e-15, "inverse, m=" + m);
            double[] z = x.clone();
            plan.forward(z, 0);
            plan.inverse(z, 0);
            assertClose(x, z, 0, 1e-14 * (bits + 1), "inverse(forward(x)), m=" + m);
        }
    }

    @Test
    void aTwistMultipliesTheOutputByPowersOfARoot() {
        for (int bits : new int[] {0, 1, 2, 5, 6, 9, 10}) {
            int m = 1 << bits;
            for (long[] en : new long[][] {{1, 2L * m}, {3, 4L * m}, {5, 8L * m}, {-1, m}, {7, 3}}) {
                long e = en[0], n = en[1];
                double[] x = random(m, 200 + bits), dft = naive(x, -1), want = new double[2 * m];
                for (int k = 0; k < m; k++) {
                    double angle = -2 * Math.PI * Math.floorMod(e * k, n) / n, c = Math.cos(angle), s = Math.sin(angle);
                    want[2 * k] = dft[2 * k] * c - dft[2 * k + 1] * s;
                    want[2 * k + 1] = dft[2 * k] * s + dft[2 * k + 1] * c;
                }
                LocalFft plan = new LocalFft(m);
                double[] got = new double[2 * m];
                plan.forward(x.clone(), 0, got, 0, plan.twist(e, n));
                assertClose(want, got, 0, 2 * tol(m), "twist e=" + e + " n=" + n + ", m=" + m);
            }
        }
    }

    @Test
    void batchTransformsEveryColumn() {
        for (int m : new int[] {1, 2, 4, 8, 32}) {
            for (int count : new int[] {1, 3, LocalFft.COLUMNS, LocalFft.COLUMNS + 5, 40}) {
                int off = 2;
                double[] a = random(off + m * count, 400 + m * count);
                double[] orig = a.clone();
                new LocalFft(m).batch(a, off, count);
                checkBatch(orig, a, m, count, off);
                // with one row of the input elsewhere: a holds garbage there
                int row = (m * 7 + count) % m;
                double[] other = new double[a.length], b = orig.clone();
                for (int i = 2 * (off + row * count); i < 2 * (off + (row + 1) * count); i++) {
                    other[i] = orig[i];
                    b[i] = 1e6;
                }
                new LocalFft(m).batch(b, off, count, other, row);
                checkBatch(orig, b, m, count, off);
            }
        }
    }

    private static void checkBatch(double[] orig, double[] a, int m, int count, int off) {
        for (int q = 0; q < count; q++) {
            double[] column = new double[2 * m];
            for (int j = 0; j < m; j++) {
                column[2 * j] = orig[2 * (off + q + j * count)];
                column[2 * j + 1] = orig[2 * (off + q + j * count) + 1];
            }
            double[] want = naive(column, -1);
            for (int k = 0; k < m; k++) {
                int at = 2 * (off + q + k * count);
                assertEquals(want[2 * k], a[at], tol(m), "batch m=" + m + " count=" + count + " q=" + q + " k=" + k);
                assertEquals(want[2 * k + 1], a[at + 1], tol(m));
            }
        }
        for (int i = 0; i < 2 * off; i++) assertEquals(orig[i], a[i], "before the offset");
    }

    @Test
    void longLengthsMatchTheDftAtSampledFrequencies() {
        for (int bits : new int[] {13, 14, 15, 17}) {
            int m = 1 << bits;
            double[] x = random(m, bits), y = x.clone();
            new LocalFft(m).forward(y, 0);
            SplittableRandom random = new SplittableRandom(m);
            for (int t = 0; t < 24; t++) {
                int k = t < 4 ? new int[] {0, 1, m / 2, m - 1}[t] : random.nextInt(m);
                double[] want = LocalFft.dftAt(x, k);
                assertEquals(want[0], y[2 * k], 1e-9, "re X[" + k + "] m=" + m);
                assertEquals(want[1], y[2 * k + 1], 1e-9, "im X[" + k + "] m=" + m);
            }
            LocalFft plan = new LocalFft(m);
            plan.inverse(y, 0);
            assertClose(x, y, 0, 1e-14 * bits, "inverse(forward(x)), m=" + m);
        }
    }

    @Test
    void rejectsLengthsThatAreNotPowersOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new LocalFft(0));
        assertThrows(IllegalArgumentException.class, () -> new LocalFft(12));
        assertThrows(IllegalArgumentException.class, () -> new LocalFft(-4));
    }
}
