package org.lpf4j.examples;

/**
 * A sequential in-place radix-2 decimation-in-time FFT of a fixed power-of-two length m, on
 * complex numbers stored interleaved (re, im) in a {@code double[]}: the local butterflies of
 * {@link Fft} and its sequential check. Computes {@code X[k] = Σ_j x[j]·e^{−2πi·jk/m}}.
 *
 * <p>Cost: the plan holds m/2 twiddles (16 bytes each) and m bit-reversal indices (4 bytes);
 * {@link #forward} does (m/2)·log2 m butterflies and allocates nothing.
 */
public final class Radix2Fft {
    private final int m;
    private final double[] cos, sin;
    private final int[] rev;

    /**
     * @param m the length, a power of two ≥ 1
     * @throws IllegalArgumentException otherwise
     */
    public Radix2Fft(int m) {
        if (m < 1 || Integer.bitCount(m) != 1) throw new IllegalArgumentException("Radix2Fft: length " + m + " is not a power of two");
        this.m = m;
        cos = new double[Math.max(1, m / 2)];
        sin = new double[Math.max(1, m / 2)];
        for (int j = 0; j < m / 2; j++) {
            double angle = -2 * Math.PI * j / m;
            cos[j] = Math.cos(angle);
            sin[j] = Math.sin(angle);
        }
        rev = new int[m];
        int bits = Integer.numberOfTrailingZeros(m);
        for (int i = 0; i < m; i++) rev[i] = bits == 0 ? 0 : Integer.reverse(i) >>> (32 - bits);
    }

    /** @return the length m */
    public int length() { return m; }

    /**
     * Transforms {@code a[2·off .. 2·(off+m))} in place.
     *
     * @param a   interleaved complex numbers
     * @param off the first complex number
     */
    public void forward(double[] a, int off) {
        int base = 2 * off;
        for (int i = 0; i < m; i++) {
            int j = rev[i];
            if (i < j) {
                int x = base + 2 * i, y = base + 2 * j;
                double tr = a[x], ti = a[x + 1];
                a[x] = a[y];
                a[x + 1] = a[y + 1];
                a[y] = tr;
                a[y + 1] = ti;
            }
        }
        for (int len = 2; len <= m; len <<= 1) {
            int half = len >>> 1, step = m / len;
            for (int i = 0; i < m; i += len) {
                for (int j = 0; j < half; j++) {
                    double wr = cos[j * step], wi = sin[j * step];
                    int u = base + 2 * (i + j), v = u + 2 * half;
                    double vr = a[v] * wr - a[v + 1] * wi, vi = a[v] * wi + a[v + 1] * wr;
                    double ur = a[u], ui = a[u + 1];
                    a[u] = ur + vr;
                    a[u + 1] = ui + vi;
                    a[v] = ur - vr;
                    a[v + 1] = ui - vi;
                }
            }
        }
    }

    /**
     * The plain O(m²) discrete Fourier transform, the definition the FFTs are tested against.
     *
     * @param x interleaved complex input of length m (any m ≥ 0)
     * @return its DFT, interleaved
     */
    public static double[] dft(double[] x) {
        int len = x.length / 2;
        double[] out = new double[2 * len];
        for (int k = 0; k < len; k++) {
            double[] v = dftAt(x, k);
            out[2 * k] = v[0];
            out[2 * k + 1] = v[1];
        }
        return out;
    }

    /**
     * One value of the plain DFT, O(m).
     *
     * @param x interleaved complex input of length m ≥ 1
     * @param k the frequency, 0 ≤ k &lt; m
     * @return {re, im} of X[k]
     */
    public static double[] dftAt(double[] x, int k) {
        int len = x.length / 2;
        double re = 0, im = 0;
        for (int j = 0; j < len; j++) {
            double angle = -2 * Math.PI * ((long) j * k % len) / len;
            double c = Math.cos(angle), s = Math.sin(angle);
            re += x[2 * j] * c - x[2 * j + 1] * s;
            im += x[2 * j] * s + x[2 * j + 1] * c;
        }
        return new double[] {re, im};
    }
}
