package org.lpf4j.examples;

import java.util.BitSet;

/**
 * A seeded R-MAT power-law graph (Chakrabarti, Zhan and Faloutsos) with N = 2^scale vertices and
 * M = edgeFactor·N directed edges, quadrant probabilities (a, b, c, d) = (0.57, 0.19, 0.19, 0.05)
 * as in Graph500. Edge e is a pure function of (seed, e), so every process generates any edge
 * without communication. Vertex ids are then scrambled by a fixed bijection of [0, N), so that the
 * high-degree vertices do not all fall into the first block of a block distribution. Self-loops
 * and repeated edges are kept (a multigraph), identically in every consumer.
 */
public final class Rmat {
    private Rmat() {}

    private static final double A = 0.57, B = 0.19, C = 0.19;

    /**
     * @param seed  the graph's seed
     * @param e     the edge's index, 0 ≤ e &lt; M
     * @param scale log2 of the vertex count, 1 … 30
     * @return the edge as {@code (source << 32) | target}, both scrambled
     */
    public static long edge(long seed, long e, int scale) {
        int u = 0, v = 0;
        long bits = 0;
        for (int level = 0; level < scale; level++) {
            double r = Inputs.uniform(seed, e * 32 + level);
            int du, dv;
            if (r < A) { du = 0; dv = 0; }
            else if (r < A + B) { du = 0; dv = 1; }
            else if (r < A + B + C) { du = 1; dv = 0; }
            else { du = 1; dv = 1; }
            u = (u << 1) | du;
            v = (v << 1) | dv;
        }
        bits = ((long) scramble(u, scale) << 32) | scramble(v, scale);
        return bits;
    }

    /** A bijection of [0, 2^scale): odd multiply, xor-shift, odd multiply, all modulo 2^scale. */
    static int scramble(int x, int scale) {
        long mask = (1L << scale) - 1;
        long y = (x * 0x9E3779B97F4A7C15L) & mask;
        y ^= y >>> Math.max(1, scale / 2);
        y = (y * 0xC2B2AE3D27D4EB4FL) & mask;
        return (int) y;
    }

    /**
     * The rows {@code [lo, hi)} of the graph's transposed adjacency in compressed sparse row
     * form: row v lists the sources u of the edges u → v in edge order, so that y = Aᵀ·x sums
     * x over the in-neighbours. Also the out-degree of every vertex in {@code [lo, hi)}.
     *
     * @param lo      the first row
     * @param rowPtr  row v's entries are {@code col[rowPtr[v−lo] .. rowPtr[v−lo+1])}
     * @param col     the sources, as global vertex ids
     * @param outDeg  the out-degree of vertex {@code lo + i}
     * @param remoteSources the number of distinct sources outside {@code [lo, hi)}
     */
    public record Csr(int lo, int[] rowPtr, int[] col, int[] outDeg, int remoteSources) {

        /**
         * Generates all M edges and keeps those into {@code [lo, hi)}; O(M·scale) time,
         * O(hi − lo + kept edges) memory (plus N bits).
         *
         * @param scale      log2 N, 1 … 30
         * @param edgeFactor M / N, ≥ 0
         * @param seed       the graph's seed
         * @param lo         the first row
         * @param hi         the row bound, lo ≤ hi ≤ N
         * @return the rows
         */
        public static Csr build(int scale, int edgeFactor, long seed, int lo, int hi) {
            if (scale < 1 || scale > 30 || edgeFactor < 0 || (long) edgeFactor << scale > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("Rmat: scale " + scale + " and edge factor " + edgeFactor
                        + " out of range (need 1 <= scale <= 30 and edgeFactor * 2^scale < 2^31)");
            }
            long m = (long) edgeFactor << scale;
            int rows = hi - lo;
            int[] rowPtr = new int[rows + 1];
            int[] outDeg = new int[rows];
            for (long e = 0; e < m; e++) {
                long uv = edge(seed, e, scale);
                int u = (int) (uv >>> 32), v = (int) uv;
                if (u >= lo && u < hi) outDeg[u - lo]++;
                if (v >= lo && v < hi) rowPtr[v - lo + 1]++;
            }
            for (int i = 0; i < rows; i++) rowPtr[i + 1] += rowPtr[i];
            int[] col = new int[rowPtr[rows]];
            int[] fill = java.util.Arrays.copyOf(rowPtr, rows);
            BitSet remote = new BitSet(1 << scale);
            for (long e = 0; e < m; e++) {
                long uv = edge(seed, e, scale);
                int u = (int) (uv >>> 32), v = (int) uv;
                if (v >= lo && v < hi) {
                    col[fill[v - lo]++] = u;
                    if (u < lo || u >= hi) remote.set(u);
                }
            }
            return new Csr(lo, rowPtr, col, outDeg, remote.cardinality());
        }

        /** @return the number of rows */
        public int rows() { return rowPtr.length - 1; }
    }
}
