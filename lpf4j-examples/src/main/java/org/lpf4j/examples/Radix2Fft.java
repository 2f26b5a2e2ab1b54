package org.lpf4j.examples;

/**
 * A sequential radix-2 FFT of a fixed power-of-two length m, on complex numbers stored
 * interleaved (re, im) in a {@code double[]}: the local butterflies of {@link Fft} and its
 * sequential check. Computes {@code X[k] = Σ_j x[j]·e^{−2πi·jk/m}}. Lengths up to 2^13 run the
 * in-place iterative decimation-in-time butterflies (bit reversal, then log2 m stages, the short
 * stages block by block in cache); longer ones Bailey's six-step form over two such plans of
 * length ≈ √m, so that the data crosses main memory three times instead of log2 m times.
 *
 * <p>Cost: (m/2)·log2 m butterflies plus, for the six-step form, m twiddle products and a
 * transpose; the plan holds O(m) bytes for short lengths and a scratch copy of the data (16m bytes)
 * plus O(√m) twiddles for long ones; {@link #forward} allocates nothing.
 */
public final class Radix2Fft {
    private final int m;
    private final double[] cos, sin;
    /** Bit reversal of the in-place form; null for the six-step form. */
    private final int[] rev;

    /**
     * @param m the length, a power of two ≥ 1
     * @throws IllegalArgumentException otherwise
     */
    public Radix2Fft(int m) {
        if (m < 1 || Integer.bitCount(m) != 1) throw new IllegalArgumentException("Radix2Fft: length " + m + " is not a power of two");
        this.m = m;
        int half = m <= SMALL ? m / 2 : 0;
        cos = new double[Math.max(1, half)];
        sin = new double[Math.max(1, half)];
        for (int j = 0; j < half; j++) {
            double angle = -2 * Math.PI * j / m;
            cos[j] = Math.cos(angle);
            sin[j] = Math.sin(angle);
        }
        int bits = Integer.numberOfTrailingZeros(m);
        if (m <= SMALL) {
            rev = new int[m];
            for (int i = 0; i < m; i++) rev[i] = bits == 0 ? 0 : Integer.reverse(i) >>> (32 - bits);
            m1 = m2 = 0;
            rows = cols = null;
            scratch = lowTw = highTw = null;
        } else {
            rev = null;
            m2 = 1 << (bits / 2);
            m1 = m / m2;
            rows = new Radix2Fft(m1);
            cols = new Radix2Fft(m2);
            scratch = new double[2 * Math.max(m, GROUP * m1)];
            // ω_m^e = ω_m^(eh·LOW) · ω_m^(el): two tables of at most max(LOW, m/LOW) entries
            lowTw = new double[2 * LOW];
            highTw = new double[2 * (m / LOW)];
            for (int e = 0; e < LOW; e++) {
                lowTw[2 * e] = Math.cos(-2 * Math.PI * e / m);
                lowTw[2 * e + 1] = Math.sin(-2 * Math.PI * e / m);
            }
            for (int e = 0; e < m / LOW; e++) {
                highTw[2 * e] = Math.cos(-2 * Math.PI * ((long) e * LOW) / m);
                highTw[2 * e + 1] = Math.sin(-2 * Math.PI * ((long) e * LOW) / m);
            }
        }
    }

    /** Lengths up to this run the in-place radix-2 butterflies; longer ones the six-step form. */
    private static final int SMALL = 1 << 13;
    /** Columns gathered together in the six-step form (8 complex numbers = two cache lines). */
    private static final int GROUP = 8;
    /** Size of the low twiddle table of the six-step form. */
    private static final int LOW = 1 << 11;
    /** Tile edge of the transpose. */
    private static final int TILE = 16;
    private final int m1, m2;
    private final Radix2Fft rows, cols;
    private final double[] scratch, lowTw, highTw;

    /** @return the length m */
    public int length() { return m; }

    /**
     * Transforms {@code a[2·off .. 2·(off+m))} in place.
     *
     * @param a   interleaved complex numbers
     * @param off the first complex number
     */
    public void forward(double[] a, int off) {
        if (rev == null) sixStep(a, 2 * off);
        else radix2(a, 2 * off);
    }

    /**
     * The six-step form for long lengths m = m1·m2 (Bailey): with j = j1·m2 + j2 and
     * k = k1 + m1·k2, FFTs of length m1 down the columns j2 (gathered GROUP at a time into a
     * cache-resident buffer) with the twiddles ω_m^(j2·k1), then FFTs of length m2 along the rows
     * k1, then a tiled transpose into natural order. Three passes over memory instead of log2 m.
     */
    private void sixStep(double[] a, int base) {
        double[] t = scratch;
        for (int g = 0; g < m2; g += GROUP) {
            int width = Math.min(GROUP, m2 - g);
            for (int j1 = 0; j1 < m1; j1++) {
                int from = base + 2 * (j1 * m2 + g);
                for (int c = 0; c < width; c++) {
                    t[2 * (c * m1 + j1)] = a[from + 2 * c];
                    t[2 * (c * m1 + j1) + 1] = a[from + 2 * c + 1];
                }
            }
            for (int c = 0; c < width; c++) {
                rows.forward(t, c * m1);
                int j2 = g + c;
                for (int k1 = 0; k1 < m1; k1++) {
                    int e = j2 * k1, hi = e / LOW, lo = e % LOW;
                    double hr = highTw[2 * hi], hiIm = highTw[2 * hi + 1], lr = lowTw[2 * lo], li = lowTw[2 * lo + 1];
                    double wr = hr * lr - hiIm * li, wi = hr * li + hiIm * lr;
                    int x = 2 * (c * m1 + k1);
                    double re = t[x], im = t[x + 1];
                    t[x] = re * wr - im * wi;
                    t[x + 1] = re * wi + im * wr;
                }
            }
            for (int k1 = 0; k1 < m1; k1++) {
                int to = base + 2 * (k1 * m2 + g);
                for (int c = 0; c < width; c++) {
                    a[to + 2 * c] = t[2 * (c * m1 + k1)];
                    a[to + 2 * c + 1] = t[2 * (c * m1 + k1) + 1];
                }
            }
        }
        for (int k1 = 0; k1 < m1; k1++) cols.forward(a, base / 2 + k1 * m2);
        // a[k1·m2 + k2] holds X[k1 + m1·k2]: transpose the m1×m2 matrix into t (m2×m1), copy back
        for (int i0 = 0; i0 < m1; i0 += TILE) {
            for (int j0 = 0; j0 < m2; j0 += TILE) {
                int ie = Math.min(m1, i0 + TILE), je = Math.min(m2, j0 + TILE);
                for (int i = i0; i < ie; i++) {
                    for (int j = j0; j < je; j++) {
                        t[2 * (j * m1 + i)] = a[base + 2 * (i * m2 + j)];
                        t[2 * (j * m1 + i) + 1] = a[base + 2 * (i * m2 + j) + 1];
                    }
                }
            }
        }
        System.arraycopy(t, 0, a, base, 2 * m);
    }

    /** The in-place radix-2 form for short lengths. */
    private void radix2(double[] a, int base) {
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
        // The stages up to length BLOCK run block by block while the block is in cache; the
        // longer stages then make one pass over the whole array each.
        int block = Math.min(m, BLOCK);
        int first = 2;
        if (m >= 4) {
            firstTwoStages(a, base);
            first = 8;
        }
        for (int start = 0; start < m; start += block) {
            for (int len = first; len <= block; len <<= 1) stage(a, base, start, start + block, len);
        }
        for (int len = 2 * block; len <= m; len <<= 1) stage(a, base, 0, m, len);
    }

    /** Stages 2 and 4 together: their twiddles are 1 and −i, so no multiplication. */
    private void firstTwoStages(double[] a, int base) {
        for (int i = 0; i < m; i += 4) {
            int p = base + 2 * i;
            double ar = a[p], ai = a[p + 1], br = a[p + 2], bi = a[p + 3];
            double cr = a[p + 4], ci = a[p + 5], dr = a[p + 6], di = a[p + 7];
            double s0r = ar + br, s0i = ai + bi, d0r = ar - br, d0i = ai - bi;
            double s1r = cr + dr, s1i = ci + di, d1r = cr - dr, d1i = ci - di;
            a[p] = s0r + s1r;
            a[p + 1] = s0i + s1i;
            a[p + 4] = s0r - s1r;
            a[p + 5] = s0i - s1i;
            // (d1r + i·d1i)·(−i) = d1i − i·d1r
            a[p + 2] = d0r + d1i;
            a[p + 3] = d0i - d1r;
            a[p + 6] = d0r - d1i;
            a[p + 7] = d0i + d1r;
        }
    }

    /** Elements (complex numbers) of a block whose stages run in cache: 32 KiB. */
    private static final int BLOCK = 1 << 11;

    /** The butterflies of stage {@code len} on complex numbers {@code [from, to)} (a multiple of len). */
    private void stage(double[] a, int base, int from, int to, int len) {
        int half = len >>> 1, step = m / len;
        for (int i = from; i < to; i += len) {
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
