package org.lpf4j.examples;

/**
 * A sequential FFT plan of a fixed power-of-two length m, on complex numbers stored interleaved
 * (re, im) in a {@code double[]}: the local transforms of {@link Fft} and its sequential check.
 * {@link #forward} computes {@code X[k] = Σ_j x[j]·e^{−2πi·jk/m}}; {@link #inverse} the inverse
 * transform including the factor 1/m.
 *
 * <p><b>Algorithm.</b> Every length runs the four-step form (Bailey, "FFTs in external or
 * hierarchical memory", 1990) with m = m1·m2, m2 = 2^⌊log2 m / 2⌋, j = j1·m2 + j2 and
 * k = k1 + m1·k2, in two passes over the data:
 * <ol>
 * <li>the m2 FFTs of length m1 down the columns j2 of the m1×m2 row-major matrix,
 *     {@link #COLUMNS} columns at a time: the group is copied into a scratch block (rows in
 *     bit-reversed order, so no separate permutation), transformed there, multiplied by the
 *     twiddles ω_m^(j2·k1) and written back in place;</li>
 * <li>the m1 FFTs of length m2 along the rows k1, {@link #ROWS} rows at a time through the
 *     scratch block, written to the output transposed (X[k1 + m1·k2]), so the transpose costs
 *     nothing extra.</li>
 * </ol>
 * Inside the scratch block a group is a sequence of rows of g complex numbers, and the FFT of a
 * group is one iterative decimation-in-time FFT whose "elements" are these rows: radix-4
 * butterflies (3 complex products and 8 complex additions per 4 points instead of radix 2's 4
 * products, and half the passes), preceded by one radix-2 stage when the length's log2 is odd.
 * Each butterfly's twiddles are loaded once and applied to the g columns in the innermost,
 * contiguous loop. Complex products use {@link Math#fma} (one multiply and one fused
 * multiply-add per real part): the additions, not the multiplications, bound a radix-4
 * butterfly, and the fused form moves half of them to the multiply units (about 15% less time
 * per stage here). The scratch block (at most 2 MiB, this machine's L2) stays in cache, so the
 * data crosses main memory twice instead of log2 m times.
 *
 * <p><b>Tables</b> (computed once, in the constructor, with {@code Math.cos}/{@code Math.sin}):
 * the radix-4 twiddles ω_{4L}^k, ω_{4L}^{2k}, ω_{4L}^{3k} of every stage L, stored in butterfly
 * order (they depend on L only, so one table serves both lengths m1 and m2); the bit reversals of
 * m1 and m2; and the step twiddles ω_m^(k1) and a two-level table for ω_m^e (ω_m^e =
 * ω_m^(e − e mod 2^h)·ω_m^(e mod 2^h)), O(√m) entries. Within a group the twiddle of the next
 * column comes from one complex product (ω_m^((j2+1)·k1) = ω_m^(j2·k1)·ω_m^(k1)), at most
 * {@code COLUMNS − 1} products from an exact table value.
 *
 * <p>Cost: (m/4)·log4 m radix-4 butterflies plus m twiddle products; the plan holds O(√m)
 * doubles plus the scratch block; {@link #forward(double[], int, double[], int)} allocates
 * nothing, the in-place forms allocate a 16m-byte buffer on their first call only.
 */
public final class LocalFft {
    /**
     * Columns transformed together in pass 1 (and by {@link #batch}): 64 complex numbers, 1 KiB
     * of each row per visit; the scratch block then holds up to 2 MiB (m = 2^22). Measured in
     * CPU time against 16, 32 and 128 at m = 2^20 … 2^22 (rows 16 or 32): 16 is 10–20% slower,
     * 32 2–5%, 128 no faster.
     */
    static final int COLUMNS = 64;
    /** Rows transformed together in pass 2: 16 (8 was 10% slower; 32 within ±3%). */
    static final int ROWS = 16;

    private final int m, m1, m2, g1, g2, lowBits;
    /** Stage L's twiddles at 6·(L−1): for k < L, (ω_{4L}^k, ω_{4L}^{2k}, ω_{4L}^{3k}) interleaved. */
    private final double[] stageTw;
    private final int[] rev1, rev2;
    /** ω_m^k1 for k1 < m1, and ω_m^e = high[e >> lowBits]·low[e & (2^lowBits − 1)]. */
    private final double[] stepTw, lowTw, highTw;
    private final double[] scratch;
    private double[] buffer, batchScratch, batchTw;
    private int[] batchRev;

    /**
     * @param m the length, a power of two ≥ 1 and ≤ 2^30
     * @throws IllegalArgumentException otherwise
     */
    public LocalFft(int m) {
        if (m < 1 || Integer.bitCount(m) != 1 || m > (1 << 30)) {
            throw new IllegalArgumentException("LocalFft: length " + m + " is not a power of two in [1, 2^30]");
        }
        this.m = m;
        int bits = Integer.numberOfTrailingZeros(m);
        m2 = 1 << (bits / 2);
        m1 = m / m2;
        g1 = Math.min(COLUMNS, m2);
        g2 = Math.min(ROWS, m1);
        stageTw = stageTwiddles(m1);
        rev1 = bitReversal(m1);
        rev2 = bitReversal(m2);
        stepTw = new double[2 * m1];
        for (int k = 0; k < m1; k++) setOmega(stepTw, k, k);
        lowBits = (bits + 1) / 2;
        lowTw = new double[2 << lowBits];
        highTw = new double[2 * Math.max(1, m >> lowBits)];
        for (int e = 0; e < 1 << lowBits; e++) setOmega(lowTw, e, e);
        for (int e = 0; e < m >> lowBits; e++) setOmega(highTw, e, (long) e << lowBits);
        scratch = new double[2 * Math.max(g1 * m1, g2 * m2)];
    }

    private void setOmega(double[] table, int index, long e) {
        double angle = -2 * Math.PI * e / m;
        table[2 * index] = Math.cos(angle);
        table[2 * index + 1] = Math.sin(angle);
    }

    /** @return the radix-4 twiddles of every stage of a transform of length len (see {@link #stageTw}) */
    private static double[] stageTwiddles(int len) {
        int quarter = Math.max(1, len / 4);
        double[] tw = new double[6 * (2 * quarter - 1)];
        for (int l = 1; l <= quarter; l *= 2) {
            for (int k = 0; k < l; k++) {
                int t = 6 * (l - 1 + k);
                for (int r = 1; r <= 3; r++) {
                    double angle = -2 * Math.PI * r * k / (4.0 * l);
                    tw[t + 2 * (r - 1)] = Math.cos(angle);
                    tw[t + 2 * (r - 1) + 1] = Math.sin(angle);
                }
            }
        }
        return tw;
    }

    private static int[] bitReversal(int len) {
        int bits = Integer.numberOfTrailingZeros(len);
        int[] rev = new int[len];
        for (int i = 0; i < len; i++) rev[i] = bits == 0 ? 0 : Integer.reverse(i) >>> (32 - bits);
        return rev;
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
        if (buffer == null) buffer = new double[2 * m];
        forward(a, off, buffer, 0);
        System.arraycopy(buffer, 0, a, 2 * off, 2 * m);
    }

    /**
     * The inverse transform {@code x[j] = (1/m)·Σ_k X[k]·e^{+2πi·jk/m}} of
     * {@code a[2·off .. 2·(off+m))}, in place (by conjugation: conj(forward(conj(X)))/m).
     *
     * @param a   interleaved complex numbers
     * @param off the first complex number
     */
    public void inverse(double[] a, int off) {
        int from = 2 * off, to = from + 2 * m;
        for (int i = from + 1; i < to; i += 2) a[i] = -a[i];
        forward(a, off);
        double scale = 1.0 / m;
        for (int i = from; i < to; i += 2) {
            a[i] *= scale;
            a[i + 1] *= -scale;
        }
    }

    /**
     * Transforms {@code src[2·srcOff .. 2·(srcOff+m))} into {@code dst[2·dstOff .. 2·(dstOff+m))};
     * the source is overwritten (it is the first pass's workspace). The ranges must not overlap.
     *
     * @param src    interleaved complex input, destroyed
     * @param srcOff its first complex number
     * @param dst    interleaved complex output
     * @param dstOff its first complex number
     */
    public void forward(double[] src, int srcOff, double[] dst, int dstOff) {
        forward(src, srcOff, dst, dstOff, (Twist) null);
    }

    /**
     * The factors ω_n^(e·k), k &lt; m, by which {@link #forward(double[], int, double[], int, Twist)}
     * multiplies its output (the BSP FFT's twiddles ω_n^(s·k1)). With k = k1 + m1·k2 the factor
     * is ω_n^(e·k1)·ω_n^(e·m1·k2): the first is folded into the column pass's twiddles (one
     * product per row and column group), the second applied in the row pass (one table value per
     * output chunk), so the twist costs one complex product per value and two tables of m1 and
     * m2 values, not a pass over a table of m values.
     */
    public final class Twist {
        private final double[] low, high;

        private Twist(long e, long n) {
            low = new double[2 * m1];
            high = new double[2 * m2];
            for (int k = 0; k < m1; k++) omega(low, k, e * k, n);
            for (int k = 0; k < m2; k++) omega(high, k, e * m1 % n * k, n);
        }

        private static void omega(double[] table, int index, long e, long n) {
            double angle = -2 * Math.PI * (double) Math.floorMod(e, n) / n;
            table[2 * index] = Math.cos(angle);
            table[2 * index + 1] = Math.sin(angle);
        }
    }

    /**
     * @param e the exponent's factor
     * @param n the root's order, ≥ 1 (e·max(m1, m2)·m1 must fit in a long)
     * @return the factors ω_n^(e·k) = e^(−2πi·e·k/n), k &lt; m, for this plan
     */
    public Twist twist(long e, long n) { return new Twist(e, n); }

    /**
     * {@link #forward(double[], int, double[], int)} with the output multiplied by the twist's
     * factors on its way out, at no extra pass.
     *
     * @param src    interleaved complex input, destroyed
     * @param srcOff its first complex number
     * @param dst    interleaved complex output: {@code X[k]·ω_n^(e·k)}
     * @param dstOff its first complex number
     * @param twist  the factors (from {@link #twist} of this plan), or null for none
     */
    public void forward(double[] src, int srcOff, double[] dst, int dstOff, Twist twist) {
        columns(src, 2 * srcOff, twist == null ? null : twist.low);
        rows(src, 2 * srcOff, dst, 2 * dstOff, twist == null ? null : twist.high);
    }

    /** Pass 1: FFTs of length m1 down the columns, times ω_m^(j2·k1) (and by[k1] if not null), in place. */
    private void columns(double[] a, int base, double[] by) {
        double[] s = scratch;
        int g = g1, row = 2 * m2, width = 2 * g, lowMask = (1 << lowBits) - 1;
        for (int j2 = 0; j2 < m2; j2 += g) {
            int col = base + 2 * j2;
            for (int j1 = 0; j1 < m1; j1++) System.arraycopy(a, col + j1 * row, s, rev1[j1] * width, width);
            fftOfRows(s, m1, g, stageTw);
            for (int k1 = 0; k1 < m1; k1++) {
                int e = j2 * k1, hi = 2 * (e >>> lowBits), lo = 2 * (e & lowMask);
                double hr = highTw[hi], hIm = highTw[hi + 1], lr = lowTw[lo], lIm = lowTw[lo + 1];
                double wr = hr * lr - hIm * lIm, wi = hr * lIm + hIm * lr;
                if (by != null) {
                    double br = by[2 * k1], bi = by[2 * k1 + 1], nr = wr * br - wi * bi;
                    wi = wr * bi + wi * br;
                    wr = nr;
                }
                double dr = stepTw[2 * k1], di = stepTw[2 * k1 + 1];
                int from = k1 * width, to = col + k1 * row;
                for (int c = 0; c < width; c += 2) {
                    double re = s[from + c], im = s[from + c + 1];
                    a[to + c] = Math.fma(re, wr, -im * wi);
                    a[to + c + 1] = Math.fma(re, wi, im * wr);
                    double nr = Math.fma(wr, dr, -wi * di);
                    wi = Math.fma(wr, di, wi * dr);
                    wr = nr;
                }
            }
        }
    }

    /**
     * Pass 2: FFTs of length m2 along the rows, written transposed into dst (output k2 times
     * by[k2] if by is not null). The gather reads the group's rows four complex numbers (a cache
     * line) at a time.
     */
    private void rows(double[] a, int base, double[] dst, int dstBase, double[] by) {
        double[] s = scratch;
        int g = g2, row = 2 * m2, width = 2 * g, out = 2 * m1;
        for (int k1 = 0; k1 < m1; k1 += g) {
            int first = base + k1 * row;
            if (m2 >= 4) {
                for (int j2 = 0; j2 < m2; j2 += 4) {
                    int x0 = rev2[j2] * width, x1 = rev2[j2 + 1] * width;
                    int x2 = rev2[j2 + 2] * width, x3 = rev2[j2 + 3] * width;
                    for (int c = 0, from = first + 2 * j2; c < width; c += 2, from += row) {
                        s[x0 + c] = a[from];
                        s[x0 + c + 1] = a[from + 1];
                        s[x1 + c] = a[from + 2];
                        s[x1 + c + 1] = a[from + 3];
                        s[x2 + c] = a[from + 4];
                        s[x2 + c + 1] = a[from + 5];
                        s[x3 + c] = a[from + 6];
                        s[x3 + c + 1] = a[from + 7];
                    }
                }
            } else {
                for (int j2 = 0; j2 < m2; j2++) {
                    for (int c = 0, from = first + 2 * j2, x = rev2[j2] * width; c < width; c += 2, from += row) {
                        s[x + c] = a[from];
                        s[x + c + 1] = a[from + 1];
                    }
                }
            }
            fftOfRows(s, m2, g, stageTw);
            for (int k2 = 0; k2 < m2; k2++) {
                int to = dstBase + 2 * k1 + k2 * out;
                if (by == null) {
                    System.arraycopy(s, k2 * width, dst, to, width);
                } else {
                    double wr = by[2 * k2], wi = by[2 * k2 + 1];
                    for (int c = 0, x = k2 * width; c < width; c += 2) {
                        double re = s[x + c], im = s[x + c + 1];
                        dst[to + c] = Math.fma(re, wr, -im * wi);
                        dst[to + c + 1] = Math.fma(re, wi, im * wr);
                    }
                }
            }
        }
    }

    /**
     * The batch form: transforms, for each q &lt; count, the sequence
     * {@code a[off + q + count·j]}, j &lt; m, in place (the FFTs down the columns of an m×count
     * row-major matrix), {@link #COLUMNS} columns at a time through a scratch block. The block is
     * allocated on the first call.
     *
     * @param a     interleaved complex numbers
     * @param off   the first complex number
     * @param count the number of sequences, ≥ 1
     */
    public void batch(double[] a, int off, int count) { batch(a, off, count, a, 0); }

    /**
     * {@link #batch(double[], int, int)} with the input's row {@code row} (the values j = row)
     * read from {@code other} at the same positions instead of from a; the output goes to a.
     * (The BSP FFT's own block stays where its local FFT wrote it, and is not copied first.)
     *
     * @param a     interleaved complex numbers
     * @param off   the first complex number
     * @param count the number of sequences, ≥ 1
     * @param other where row {@code row} of the input lies
     * @param row   that row, 0 ≤ row &lt; m
     */
    public void batch(double[] a, int off, int count, double[] other, int row) {
        int g = Math.min(COLUMNS, count), width = 2 * g, stride = 2 * count;
        if (batchScratch == null || batchScratch.length < 2 * g * m) {
            batchScratch = new double[2 * g * m];
            batchRev = bitReversal(m);
            batchTw = stageTwiddles(m);
        }
        double[] s = batchScratch;
        int[] rev = batchRev;
        for (int q = 0; q < count; q += g) {
            int w = Math.min(width, 2 * (count - q)), col = 2 * (off + q);
            for (int j = 0; j < m; j++) System.arraycopy(j == row ? other : a, col + j * stride, s, rev[j] * w, w);
            fftOfRows(s, m, w / 2, batchTw);
            for (int k = 0; k < m; k++) System.arraycopy(s, k * w, a, col + k * stride, w);
        }
    }

    /**
     * The FFT of length len of a sequence of len rows of g complex numbers (each column
     * transformed independently), rows in bit-reversed order on entry, natural order on exit.
     */
    private static void fftOfRows(double[] s, int len, int g, double[] tw) {
        int width = 2 * g, l = 1;
        if (Integer.numberOfTrailingZeros(len) % 2 == 1) {
            radix2(s, len, width);
            l = 2;
        } else if (len >= 4) {
            firstRadix4(s, len, width);
            l = 4;
        }
        for (; 4 * l <= len; l *= 4) radix4(s, tw, len, width, l);
    }

    /** The radix-2 stage of length 2 (twiddle 1). */
    private static void radix2(double[] s, int len, int width) {
        for (int p = 0; p < len * width; p += 2 * width) {
            int q = p + width;
            for (int c = 0; c < width; c++) {
                double x = s[p + c], y = s[q + c];
                s[p + c] = x + y;
                s[q + c] = x - y;
            }
        }
    }

    /** The radix-4 stage of length 4 (twiddles 1): butterflies without products. */
    private static void firstRadix4(double[] s, int len, int width) {
        for (int p0 = 0; p0 < len * width; p0 += 4 * width) {
            int p1 = p0 + width, p2 = p1 + width, p3 = p2 + width;
            for (int c = 0; c < width; c += 2) {
                // quarters in bit-reversed order: A0, A2, A1, A3
                double a0r = s[p0 + c], a0i = s[p0 + c + 1], a2r = s[p1 + c], a2i = s[p1 + c + 1];
                double a1r = s[p2 + c], a1i = s[p2 + c + 1], a3r = s[p3 + c], a3i = s[p3 + c + 1];
                butterfly(s, p0 + c, p1 + c, p2 + c, p3 + c, a0r, a0i, a1r, a1i, a2r, a2i, a3r, a3i);
            }
        }
    }

    /**
     * A radix-4 decimation-in-time stage combining four DFTs of length l into one of length 4l:
     * X[k + q·l] = Σ_r ω_{4l}^{rk}·(−i)^{rq}·A_r[k], the A_r (DFTs of the inputs ≡ r mod 4) lying
     * in the quarters in the bit-reversed order A0, A2, A1, A3.
     */
    private static void radix4(double[] s, double[] tw, int len, int width, int l) {
        int quarter = l * width, tb = 6 * (l - 1);
        for (int i = 0; i < len * width; i += 4 * quarter) {
            for (int k = 0; k < l; k++) {
                int t = tb + 6 * k;
                double w1r = tw[t], w1i = tw[t + 1], w2r = tw[t + 2], w2i = tw[t + 3], w3r = tw[t + 4], w3i = tw[t + 5];
                double n1 = -w1i, n2 = -w2i, n3 = -w3i;
                int p0 = i + k * width, p1 = p0 + quarter, p2 = p1 + quarter, p3 = p2 + quarter;
                for (int c = 0; c < width; c += 2) {
                    double a0r = s[p0 + c], a0i = s[p0 + c + 1];
                    double x = s[p2 + c], y = s[p2 + c + 1];
                    double a1r = Math.fma(y, n1, x * w1r), a1i = Math.fma(x, w1i, y * w1r);
                    x = s[p1 + c];
                    y = s[p1 + c + 1];
                    double a2r = Math.fma(y, n2, x * w2r), a2i = Math.fma(x, w2i, y * w2r);
                    x = s[p3 + c];
                    y = s[p3 + c + 1];
                    double a3r = Math.fma(y, n3, x * w3r), a3i = Math.fma(x, w3i, y * w3r);
                    butterfly(s, p0 + c, p1 + c, p2 + c, p3 + c, a0r, a0i, a1r, a1i, a2r, a2i, a3r, a3i);
                }
            }
        }
    }

    /** Stores X_q = a0 + (−i)^q·a1 + (−1)^q·a2 + i^q·a3 at positions x0..x3. */
    private static void butterfly(double[] s, int x0, int x1, int x2, int x3, double a0r, double a0i,
            double a1r, double a1i, double a2r, double a2i, double a3r, double a3i) {
        double t0r = a0r + a2r, t0i = a0i + a2i, t1r = a0r - a2r, t1i = a0i - a2i;
        double t2r = a1r + a3r, t2i = a1i + a3i, t3r = a1r - a3r, t3i = a1i - a3i;
        s[x0] = t0r + t2r;
        s[x0 + 1] = t0i + t2i;
        s[x2] = t0r - t2r;
        s[x2 + 1] = t0i - t2i;
        // X1 = t1 − i·t3, X3 = t1 + i·t3
        s[x1] = t1r + t3i;
        s[x1 + 1] = t1i - t3r;
        s[x3] = t1r - t3i;
        s[x3 + 1] = t1i + t3r;
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
