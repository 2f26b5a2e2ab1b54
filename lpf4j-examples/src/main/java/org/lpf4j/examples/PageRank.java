package org.lpf4j.examples;

import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Collectives;
import org.lpf4j.cr.Checkpoints;

import java.lang.foreign.MemorySegment;

/**
 * PageRank by repeated sparse matrix–vector multiplication on a seeded {@link Rmat R-MAT} graph:
 * {@code r ← (1−d)/N + d·(Aᵀ·(r / outdeg) + D/N)}, d = {@value #DAMPING}, D the rank held by
 * vertices without out-edges, starting from r = 1/N, a fixed number of iterations (default
 * {@value #DEFAULT_ITERATIONS}).
 *
 * <p><b>Distribution.</b> Vertices are block-distributed: process s owns rows and ranks of
 * {@code [N·s/p, N·(s+1)/p)} and, as the rows it multiplies, the in-edges of those vertices
 * ({@link Rmat.Csr}, built by every process from the seeded generator).
 *
 * <p><b>One iteration = one superstep.</b> Each process scales its ranks by the out-degrees into
 * its block of a registered length-N vector z and sums its dangling rank; it then sends its block
 * of z to every other process with the collectives' <b>allgatherv</b> (the blocks differ in size
 * by one when p does not divide N: p−1 puts of N/p doubles) and its dangling partial with
 * <b>allgather</b> (p−1 puts of one double), both in the same superstep; after the sync
 * every process sums the partials in pid order and computes its new ranks with a local CSR SpMV
 * that reads z. Blocks are exchanged whole: on an R-MAT graph with edge factor 16 almost every
 * vertex has an out-edge into every block at p ≤ 8 ({@link Instance#remoteFraction()} reports the
 * fraction of remote values actually read), so packing the needed values would cost a gather pass
 * and save little traffic.
 *
 * <p>BSP cost per iteration: local work O(M/p + N/p) (M/p gathered additions, N/p divisions);
 * h = (N/p)(p−1) + (p−1) doubles per process; {@code l + 8(N + p)·g}. Iterations × that in total;
 * allocates nothing per run.
 *
 * <p>The check recomputes PageRank sequentially on the whole graph (same summation order within
 * each row; only the dangling sum differs in rounding) and demands relative agreement within
 * 10<sup>−9</sup> on every owned vertex.
 *
 * <p>Symbols: scale (log2 N, default {@value #DEFAULT_SCALE}), edge factor (default
 * {@value #DEFAULT_EDGE_FACTOR}), iterations (default {@value #DEFAULT_ITERATIONS}), seed
 * (default {@value #DEFAULT_SEED}).
 */
public final class PageRank implements Spmd {
    private static final long serialVersionUID = 1L;
    /** The damping factor d. */
    public static final double DAMPING = 0.85;
    /** The default log2 of the vertex count. */
    public static final int DEFAULT_SCALE = 14;
    /** The default edges per vertex. */
    public static final int DEFAULT_EDGE_FACTOR = 16;
    /** The default number of iterations. */
    public static final int DEFAULT_ITERATIONS = 20;
    /** The default seed. */
    public static final long DEFAULT_SEED = 3;

    /** Creates the program. */
    public PageRank() {}

    @Override
    public void run(Context ctx) {
        var symbols = ctx.args().symbols();
        int scale = (int) Inputs.symbol(symbols, 0, DEFAULT_SCALE, "PageRank", "scale");
        int edgeFactor = (int) Inputs.symbol(symbols, 1, DEFAULT_EDGE_FACTOR, "PageRank", "edge factor");
        int iterations = (int) Inputs.symbol(symbols, 2, DEFAULT_ITERATIONS, "PageRank", "iterations");
        long seed = Inputs.symbol(symbols, 3, DEFAULT_SEED, "PageRank", "seed");
        Instance instance = prepare(ctx, scale, edgeFactor, iterations, seed);
        try (instance; Checkpoints cr = Checkpoints.init(ctx, "PageRank " + scale + " " + edgeFactor + " " + iterations
                + " " + seed)) {
            long t0 = System.nanoTime();
            instance.run(cr);
            double seconds = (System.nanoTime() - t0) / 1e9;
            String summary = instance.check();
            long digest = instance.digest();
            if (ctx.pid() == 0) {
                Inputs.report(ctx.args().output(), summary + String.format("; digest of all ranks' bits %016x; the"
                        + " iterations took %.3f s at pid 0", digest, seconds) + System.lineSeparator());
            }
        }
    }

    /**
     * Builds this process's rows of the graph and registers the exchanged vector; collective.
     *
     * @param ctx        a fresh context of this process
     * @param scale      log2 of the vertex count, 1 … 30
     * @param edgeFactor edges per vertex
     * @param iterations PageRank iterations per run, ≥ 0
     * @param seed       the graph's seed
     * @return the prepared program
     */
    public static Instance prepare(Context ctx, int scale, int edgeFactor, int iterations, long seed) {
        return new Instance(ctx, scale, edgeFactor, iterations, seed);
    }

    /**
     * The sequential reference: PageRank on the whole graph.
     *
     * @param graph      all rows ({@code Csr.build(scale, edgeFactor, seed, 0, N)})
     * @param iterations iterations
     * @return the ranks
     */
    public static double[] sequential(Rmat.Csr graph, int iterations) {
        int nv = graph.rows();
        double[] r = new double[nv], z = new double[nv];
        java.util.Arrays.fill(r, 1.0 / nv);
        int[] rowPtr = graph.rowPtr(), col = graph.col(), deg = graph.outDeg();
        for (int it = 0; it < iterations; it++) {
            double dangling = 0;
            for (int v = 0; v < nv; v++) {
                if (deg[v] == 0) { dangling += r[v]; z[v] = 0; } else z[v] = r[v] / deg[v];
            }
            double base = (1 - DAMPING) / nv + DAMPING * dangling / nv;
            for (int v = 0; v < nv; v++) {
                double sum = 0;
                for (int e = rowPtr[v]; e < rowPtr[v + 1]; e++) sum += z[col[e]];
                r[v] = base + DAMPING * sum;
            }
        }
        return r;
    }

    /** One process's part of a prepared PageRank. */
    public static final class Instance implements BspRun {
        private final Context ctx;
        private final int scale, edgeFactor, iterations, p, s, nv, lo, hi;
        private final long seed;
        private final Rmat.Csr rows;
        private final double[] rank, z, partials, myDangling = new double[1];
        /** The vector z (global), this process's block of it (local: allgatherv's source), the partials and this process's one. */
        private final Memslot zSlot, zBlockSlot, partialsSlot, danglingSlot;
        /** allgatherv's layout of z in bytes: block t is {@code [offsets[t], offsets[t] + counts[t])}. */
        private final long[] counts, offsets;
        private final Collectives coll;
        /** Whether the last run threw: close() must not sync then (the section is failing; a sync would meet other requests). */
        private boolean failed;

        Instance(Context ctx, int scale, int edgeFactor, int iterations, long seed) {
            if (iterations < 0) throw new IllegalArgumentException("PageRank: iterations " + iterations + " < 0");
            this.ctx = ctx;
            this.scale = scale;
            this.edgeFactor = edgeFactor;
            this.iterations = iterations;
            this.seed = seed;
            p = ctx.nprocs();
            s = ctx.pid();
            nv = 1 << scale;
            lo = (int) ((long) nv * s / p);
            hi = (int) ((long) nv * (s + 1) / p);
            rows = Rmat.Csr.build(scale, edgeFactor, seed, lo, hi);
            rank = new double[hi - lo];
            z = new double[nv];
            partials = new double[p];
            counts = new long[p];
            offsets = new long[p];
            for (int t = 0; t < p; t++) {
                offsets[t] = 8L * (int) ((long) nv * t / p);
                counts[t] = 8L * (int) ((long) nv * (t + 1) / p) - offsets[t];
            }
            // own: four slots, and digest()'s puts into pid 0 (p−1 there); the collectives object
            // (allgatherv and allgather per superstep) and a Checkpoints object (run(Context) makes one)
            Capacity.of(4, p).plus(Collectives.needs(p, 2, 0, 8)).plus(Checkpoints.needs(p)).reserve(ctx);
            coll = Collectives.init(ctx, 2, 0, 8);
            zSlot = ctx.registerGlobal(MemorySegment.ofArray(z));
            zBlockSlot = ctx.registerLocal(MemorySegment.ofArray(z).asSlice(8L * lo, 8L * (hi - lo)));
            partialsSlot = ctx.registerGlobal(MemorySegment.ofArray(partials));
            danglingSlot = ctx.registerLocal(MemorySegment.ofArray(myDangling));
            ctx.sync();
        }

        @Override
        public void reset() {
            // run() starts from r = 1/N.
        }

        @Override
        public void run() { run(null); }

        /**
         * Runs the iterations with a checkpoint point after each: the ranks of this process's
         * vertices and the iteration count survive; a restart resumes after the last checkpoint.
         * Costs one sync per iteration more than {@link #run()} (with module {@code none}, only that).
         *
         * @param cr the checkpoints, or null for none
         */
        public void run(Checkpoints cr) {
            failed = true;
            int n = hi - lo;
            java.util.Arrays.fill(rank, 1.0 / nv);
            int first = 0;
            if (cr != null) {
                cr.protect("ranks", MemorySegment.ofArray(rank));
                cr.resume();
                first = (int) cr.iteration();
            }
            int[] rowPtr = rows.rowPtr(), col = rows.col(), deg = rows.outDeg();
            for (int it = first; it < iterations; it++) {
                double dangling = 0;
                for (int i = 0; i < n; i++) {
                    int d = deg[i];
                    if (d == 0) { dangling += rank[i]; z[lo + i] = 0; } else z[lo + i] = rank[i] / d;
                }
                partials[s] = dangling;
                myDangling[0] = dangling;
                coll.allgatherv(zBlockSlot, zSlot, counts, offsets, true);
                coll.allgather(danglingSlot, partialsSlot, 8, true);
                ctx.sync();
                double total = 0;
                for (int t = 0; t < p; t++) total += partials[t];
                double base = (1 - DAMPING) / nv + DAMPING * total / nv;
                for (int i = 0; i < n; i++) {
                    double sum = 0;
                    for (int e = rowPtr[i], end = rowPtr[i + 1]; e < end; e++) sum += z[col[e]];
                    rank[i] = base + DAMPING * sum;
                }
                if (cr != null) cr.checkpoint(); // advances cr.iteration() to it + 1 before taking one
            }
            if (cr != null) cr.flush(); // the last checkpoint complete: --resume of the finished job starts from it
            failed = false;
        }

        /**
         * A digest of every process's rank bits in pid order, equal for equal results bit for
         * bit: what shows that a restarted run computed exactly what an uninterrupted one does.
         * Collective: one superstep in which each process sends pid 0 eight bytes.
         *
         * @return the digest at pid 0; at the others, their own part
         */
        public long digest() {
            long h = 1;
            for (double v : rank) h = h * 1_000_003 + Double.doubleToRawLongBits(v);
            partials[s] = Double.longBitsToDouble(h);
            if (s != 0) ctx.put(partialsSlot, 8L * s, 0, partialsSlot, 8L * s, 8);
            ctx.sync();
            if (s != 0) return h;
            long all = 0;
            for (int t = 0; t < p; t++) all = all * 1_000_033 + Double.doubleToRawLongBits(partials[t]);
            return all;
        }

        /** @return a copy of the ranks of this process's vertices {@code [firstVertex(), firstVertex() + length)} */
        public double[] ranks() { return rank.clone(); }

        /** @return the first vertex this process owns */
        public int firstVertex() { return lo; }

        /** @return distinct remote sources this process reads / vertices outside its block (0 at p = 1) */
        public double remoteFraction() {
            int outside = nv - (hi - lo);
            return outside == 0 ? 0 : (double) rows.remoteSources() / outside;
        }

        /** @return the number of edges in this process's rows */
        public int edges() { return rows.col().length; }

        @Override
        public String check() {
            double[] expected = sequential(Rmat.Csr.build(scale, edgeFactor, seed, 0, nv), iterations);
            double sum = 0;
            for (int i = 0; i < hi - lo; i++) {
                double want = expected[lo + i], got = rank[i];
                if (!(Math.abs(got - want) <= 1e-9 * Math.abs(want))) {
                    throw new IllegalStateException("PageRank (scale=" + scale + ", edgeFactor=" + edgeFactor
                            + ", iterations=" + iterations + ", seed=" + seed + ", p=" + p + ") at pid " + s
                            + ": rank[" + (lo + i) + "] = " + got + ", sequentially " + want);
                }
                sum += got;
            }
            return String.format("PageRank, %d iterations on an R-MAT graph of %d vertices and %d edges, %d processes: "
                    + "pid 0's %d ranks (sum %.6f) equal the sequential ones within 1e-9; it reads %.0f%% of the "
                    + "remote vertices' values", iterations, nv, (long) edgeFactor * nv, p, hi - lo, sum,
                    100 * remoteFraction());
        }

        @Override
        public void close() {
            if (!failed) ctx.sync();
            ctx.deregister(danglingSlot);
            ctx.deregister(partialsSlot);
            ctx.deregister(zBlockSlot);
            ctx.deregister(zSlot);
            coll.close();
        }
    }
}
