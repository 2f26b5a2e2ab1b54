package org.lpf4j.examples.bsplib;

import org.lpf4j.Context;
import org.lpf4j.Spmd;
import org.lpf4j.bsplib.Bsplib;

import java.lang.foreign.MemorySegment;

/**
 * BSPedupack's {@code bsplu} with a row-cyclic distribution (its M × N = p × 1 case): the LU
 * decomposition with partial pivoting, {@code PA = LU}, of a dense n × n matrix whose row i lives
 * on process i mod p. Stage k takes two supersteps:
 * <ol>
 *   <li>each process finds its candidate pivot (largest |a[i][k]|, i ≥ k, lowest i on ties) and
 *       puts it to every process (h = 2p doubles);</li>
 *   <li>all choose the same pivot row r; its owner puts row r to every process, the owner of row k
 *       puts row k to the owner of row r (h ≤ p·n doubles); after the sync the two rows are
 *       swapped and every process updates its rows below k with the pivot row (2(n − k)²/p flops).</li>
 * </ol>
 * Every process then checks its rows and the permutation against the sequential algorithm run
 * on the same matrix: the same operations in the same order, so equality is exact. Argument: n
 * (default 256). Cost: 2n supersteps, O(n³/p) flops per process, O(n²) words sent per process.
 */
public final class LuDecomposition implements Spmd {
    private static final long serialVersionUID = 1L;

    /** Creates the program; it keeps no state. */
    public LuDecomposition() {}

    /** @return the entry (i, j) of the test matrix: pseudo-random in [-1, 1) */
    static double entry(long i, long j) {
        long h = (i * 0x9E3779B97F4A7C15L) ^ (j * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 31;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 29;
        return ((h >>> 11) * 0x1.0p-53) * 2 - 1;
    }

    /**
     * The sequential LU with partial pivoting (row swaps of whole rows), in place.
     *
     * @param a   the n × n matrix, row-major; becomes L (below the diagonal, unit diagonal implied) and U
     * @param n   the order
     * @param piv receives the pivot row of every stage
     */
    static void sequential(double[] a, int n, int[] piv) {
        for (int k = 0; k < n; k++) {
            int r = k;
            double max = Math.abs(a[k * n + k]);
            for (int i = k + 1; i < n; i++) {
                if (Math.abs(a[i * n + k]) > max) {
                    max = Math.abs(a[i * n + k]);
                    r = i;
                }
            }
            piv[k] = r;
            if (r != k) {
                for (int j = 0; j < n; j++) {
                    double t = a[k * n + j];
                    a[k * n + j] = a[r * n + j];
                    a[r * n + j] = t;
                }
            }
            double pivot = a[k * n + k];
            for (int i = k + 1; i < n; i++) {
                a[i * n + k] /= pivot;
                double l = a[i * n + k];
                for (int j = k + 1; j < n; j++) a[i * n + j] -= l * a[k * n + j];
            }
        }
    }

    /**
     * The BSP part: decomposes this process's rows in place.
     *
     * @param bsp this process's BSPlib
     * @param a   this process's rows (global rows s, s + p, ...), row-major, n columns
     * @param n   the order
     * @param piv receives the pivot row of every stage (the same on every process)
     */
    public static void lu(Bsplib bsp, double[] a, int n, int[] piv) {
        int p = bsp.nprocs(), s = bsp.pid();
        double[] cand = new double[2 * p], pivRow = new double[n], swapRow = new double[n];
        MemorySegment candS = MemorySegment.ofArray(cand), pivS = MemorySegment.ofArray(pivRow),
                swapS = MemorySegment.ofArray(swapRow), aS = MemorySegment.ofArray(a);
        bsp.pushReg(candS);
        bsp.pushReg(pivS);
        bsp.pushReg(swapS);
        bsp.sync();
        MemorySegment mine = MemorySegment.ofArray(new double[2]);
        for (int k = 0; k < n; k++) {
            // (1) my candidate: the largest |a[i][k]| over my rows i >= k, the lowest i on ties
            double max = -1, at = -1;
            for (int i = first(k, s, p); i < n; i += p) {
                double v = Math.abs(a[(i / p) * n + k]);
                if (v > max) {
                    max = v;
                    at = i;
                }
            }
            mine.setAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 0, max);
            mine.setAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 1, at);
            for (int q = 0; q < p; q++) bsp.put(q, mine, candS, 16L * s, 16);
            bsp.sync();
            // (2) the pivot row r, the same everywhere; move rows r and k
            int r = -1;
            double best = -1;
            for (int q = 0; q < p; q++) {
                double v = cand[2 * q], i = cand[2 * q + 1];
                if (i >= 0 && (v > best || (v == best && i < r))) {
                    best = v;
                    r = (int) i;
                }
            }
            piv[k] = r;
            if (r % p == s) for (int q = 0; q < p; q++) bsp.put(q, aS, 8L * (r / p) * n, pivS, 0, 8L * n);
            if (k % p == s && r != k) bsp.put(r % p, aS, 8L * (k / p) * n, swapS, 0, 8L * n);
            bsp.sync();
            if (r != k) {
                if (k % p == s) System.arraycopy(pivRow, 0, a, (k / p) * n, n);
                if (r % p == s) System.arraycopy(swapRow, 0, a, (r / p) * n, n);
            }
            double pivot = pivRow[k];
            if (pivot == 0) throw bsp.abort("LuDecomposition: the matrix is singular at stage " + k);
            for (int i = first(k + 1, s, p); i < n; i += p) {
                int row = (i / p) * n;
                a[row + k] /= pivot;
                double l = a[row + k];
                for (int j = k + 1; j < n; j++) a[row + j] -= l * pivRow[j];
            }
        }
        bsp.popReg(candS);
        bsp.popReg(pivS);
        bsp.popReg(swapS);
        bsp.sync();
    }

    /** @return the smallest global row ≥ k that process s owns */
    private static int first(int k, int s, int p) {
        return k + ((s - k % p) + p) % p;
    }

    @Override
    public void run(Context ctx) {
        int n = Reports.size("LuDecomposition", ctx.args().symbols(), 256);
        try (Bsplib bsp = Bsplib.begin(ctx)) {
            int p = bsp.nprocs(), s = bsp.pid(), rows = (n - s + p - 1) / p;
            double[] a = new double[rows * n];
            for (int i = s; i < n; i += p) for (int j = 0; j < n; j++) a[(i / p) * n + j] = entry(i, j);
            int[] piv = new int[n];
            long t0 = System.nanoTime();
            lu(bsp, a, n, piv);
            double seconds = (System.nanoTime() - t0) * 1e-9;
            // The check: the sequential algorithm on the whole matrix, compared row by row.
            double[] full = new double[n * n];
            for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) full[i * n + j] = entry(i, j);
            int[] seqPiv = new int[n];
            sequential(full, n, seqPiv);
            for (int k = 0; k < n; k++) {
                if (piv[k] != seqPiv[k]) throw new IllegalStateException("LuDecomposition: pivot of stage " + k + " is row "
                        + piv[k] + ", sequentially " + seqPiv[k]);
            }
            for (int i = s; i < n; i += p) {
                for (int j = 0; j < n; j++) {
                    if (a[(i / p) * n + j] != full[i * n + j]) {
                        throw new IllegalStateException("LuDecomposition at pid " + s + ": LU[" + i + "][" + j + "] = "
                                + a[(i / p) * n + j] + ", sequentially " + full[i * n + j]);
                    }
                }
            }
            bsp.sync(); // everyone has checked before process 0 reports
            Reports.report(ctx, String.format("LU decomposition with partial pivoting of a %d x %d matrix on %d processes"
                    + " (row-cyclic): %.3f s; L, U and the %d pivots equal the sequential result%n", n, n, p, seconds, n));
        }
    }
}
