package org.lpf4j.examples;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Algorithm;
import org.lpf4j.coll.Collectives;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Dense matrix multiplication C = A·B of n×n doubles by SUMMA (van de Geijn and Watts) on a
 * pr × pc process grid, with collective broadcasts along process rows and columns.
 *
 * <p><b>Grid.</b> pr is the largest divisor of p with pr ≤ √p, pc = p / pr: a square q×q grid
 * when p = q², otherwise a rectangle (p = 2: 1×2, p = 8: 2×4; a prime p gives a 1×p grid, where
 * every process receives all of A, i.e. a 1D algorithm). All p processes work. Process
 * s = r·pc + c owns the blocks (r, c) of A, B and C: rows {@code [n·r/pr, n·(r+1)/pr)}, columns
 * {@code [n·c/pc, n·(c+1)/pc)}, row-major. A panel of rows of B is contiguous in its block; a panel
 * of columns of A is packed row by row into the broadcast buffer by its owner.
 *
 * <p><b>Algorithm.</b> The k dimension is cut at the column boundaries of A and the row
 * boundaries of B into S ≤ pr + pc − 1 segments (S = q on a q×q grid). For each segment, the
 * owner of that A panel in each process row broadcasts it along its row and the owner of the B
 * panel in each process column broadcasts it along its column (two {@link Collectives} objects
 * per process, over its row and its column, {@link Algorithm#DIRECT}: one superstep); every
 * process then adds the panel product to its C block. Panels are double-buffered, so the
 * broadcast of segment t and the multiplication of segment t−1 share a superstep.
 *
 * <p>BSP cost: S + 1 supersteps; local work 2n³/p flops (a k/j-tiled i-k-j kernel on Java
 * arrays, k unrolled by four); h-relations: in the superstep of a segment of width w, a panel owner is read by its
 * pc − 1 row peers (w·n/pr words each) and pr − 1 column peers (w·n/pc words), so over the
 * whole run h ≈ n²(pc−1)/p + n²(pr−1)/p words per process ({@code ≈ 2n²/√p} on a square grid),
 * plus the local copy of the owned panels into the broadcast buffers.
 *
 * <p>Input: {@link #a(long, long) a(i, j)} and {@link #b(long, long) b(i, j)} are small integers,
 * so every entry of C is an exact integer in a double for n < 2<sup>40</sup> and the check
 * (every process recomputes its C block sequentially, O(n³/p)) demands equality.
 *
 * <p>Symbols: n (default {@value #DEFAULT_N}).
 */
public final class MatrixMultiply implements Spmd {
    private static final long serialVersionUID = 1L;
    /** The default matrix order. */
    public static final long DEFAULT_N = 256;
    /** The k-tile of the local kernel (rows of a B panel per pass). */
    static final int KB = 128;
    /** The j-tile of the local kernel (doubles of a C row per pass). */
    static final int JB = 256;
    /** The i-tile of the local kernel (rows of C per pass). */
    static final int IB = 32;

    /** Creates the program. */
    public MatrixMultiply() {}

    @Override
    public void run(Context ctx) {
        long n = Inputs.symbol(ctx.args().symbols(), 0, DEFAULT_N, "MatrixMultiply", "matrix order n");
        Inputs.runOnce(ctx, prepare(ctx, (int) Math.min(n, Integer.MAX_VALUE)));
    }

    /** @return entry (i, j) of A */
    public static double a(long i, long j) { return (double) ((i * 7 + j * 3) % 17 - 8); }

    /** @return entry (i, j) of B */
    public static double b(long i, long j) { return (double) ((i * 5 + j * 11) % 13 - 6); }

    /**
     * @param p the number of processes, ≥ 1
     * @return pr, the largest divisor of p not above √p (the grid is pr × p/pr)
     */
    public static int gridRows(int p) {
        int pr = 1;
        for (int d = 1; (long) d * d <= p; d++) if (p % d == 0) pr = d;
        return pr;
    }

    /**
     * Allocates this process's blocks, fills A and B and registers the panels; collective.
     *
     * @param ctx a fresh context of this process
     * @param n   the matrix order; every block must fit in an array
     * @return the prepared program
     */
    public static Instance prepare(Context ctx, int n) { return new Instance(ctx, n); }

    /**
     * C += Ap·Bp for an mr×w panel of A and a w×nc panel of B, both row-major; C is mr×nc
     * row-major. Tiled over i, k and j so that a B tile stays in cache across a block of rows of C
     * and that block's stripe of C across the k tiles. The k loop is unrolled by four: one pass of
     * the innermost j loop adds four rows of B (scaled) to a row of C, so C is loaded and stored a
     * quarter as often as by the plain i-k-j loop; the j loop stays one the JIT vectorizes (loads
     * from B, one load and store of C). The sums are reassociated (four products added, then added
     * to C); with the integer entries of {@link #a}/{@link #b} every sum is exact either way.
     *
     * @param ap the A panel
     * @param bp the B panel
     * @param c  the C block
     * @param mr rows of C
     * @param nc columns of C
     * @param w  the panel width
     */
    static void multiplyAdd(double[] ap, double[] bp, double[] c, int mr, int nc, int w) {
        for (int ib = 0; ib < mr; ib += IB) {
            int ie = Math.min(mr, ib + IB);
            multiplyAddRows(ap, bp, c, ib, ie, nc, w);
        }
    }

    /** {@link #multiplyAdd} for the rows {@code [ib, ie)} of C, whose stripe stays in cache across the k tiles. */
    private static void multiplyAddRows(double[] ap, double[] bp, double[] c, int ib, int ie, int nc, int w) {
        for (int kb = 0; kb < w; kb += KB) {
            int ke = Math.min(w, kb + KB);
            for (int jb = 0; jb < nc; jb += JB) {
                int je = Math.min(nc, jb + JB);
                for (int i = ib; i < ie; i++) {
                    int ci = i * nc, ai = i * w, k = kb;
                    // four rows of B per pass over the C row: a quarter of the loads and stores of C
                    for (; k + 4 <= ke; k += 4) {
                        double a0 = ap[ai + k], a1 = ap[ai + k + 1], a2 = ap[ai + k + 2], a3 = ap[ai + k + 3];
                        int b0 = k * nc, b1 = b0 + nc, b2 = b1 + nc, b3 = b2 + nc;
                        for (int j = jb; j < je; j++) {
                            c[ci + j] += a0 * bp[b0 + j] + a1 * bp[b1 + j] + a2 * bp[b2 + j] + a3 * bp[b3 + j];
                        }
                    }
                    for (; k < ke; k++) {
                        double aik = ap[ai + k];
                        int bk = k * nc;
                        for (int j = jb; j < je; j++) c[ci + j] += aik * bp[bk + j];
                    }
                }
            }
        }
    }

    /** One process's part of a prepared SUMMA multiplication. */
    public static final class Instance implements BspRun {
        private final Context ctx;
        private final int n, p, pr, pc, r, c, mr, nc, segments;
        private final int[] rowBounds, colBounds, segStart, segOwnerCol, segOwnerRow;
        private final double[] aBlock, bBlock, cBlock;
        private final double[][] aPanel = new double[2][], bPanel = new double[2][];
        private final Memslot[] aPanelSlot = new Memslot[2], bPanelSlot = new Memslot[2];
        private final Collectives[] rowColl, colColl;

        Instance(Context ctx, int n) {
            this.ctx = ctx;
            this.n = n;
            p = ctx.nprocs();
            pr = gridRows(p);
            pc = p / pr;
            r = ctx.pid() / pc;
            c = ctx.pid() % pc;
            rowBounds = bounds(n, pr);
            colBounds = bounds(n, pc);
            mr = rowBounds[r + 1] - rowBounds[r];
            nc = colBounds[c + 1] - colBounds[c];
            int[] cuts = java.util.stream.IntStream.concat(Arrays.stream(rowBounds), Arrays.stream(colBounds))
                    .distinct().sorted().toArray();
            segments = cuts.length - 1;
            segStart = Arrays.copyOf(cuts, cuts.length);
            segOwnerCol = new int[segments];
            segOwnerRow = new int[segments];
            int maxW = 0;
            for (int t = 0; t < segments; t++) {
                segOwnerCol[t] = blockOf(colBounds, segStart[t]);
                segOwnerRow[t] = blockOf(rowBounds, segStart[t]);
                maxW = Math.max(maxW, segStart[t + 1] - segStart[t]);
            }
            long maxMr = (n + pr - 1) / pr, maxNc = (n + pc - 1) / pc;
            if ((long) maxW * Math.max(maxMr, maxNc) > Integer.MAX_VALUE - 8 || maxMr * maxNc > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("MatrixMultiply: n=" + n + " on a " + pr + "x" + pc
                        + " grid gives blocks too large for an array");
            }
            aBlock = new double[mr * nc];
            bBlock = new double[mr * nc];
            cBlock = new double[mr * nc];
            int r0 = rowBounds[r], c0 = colBounds[c];
            for (int i = 0; i < mr; i++) {
                for (int j = 0; j < nc; j++) {
                    aBlock[i * nc + j] = a(r0 + i, c0 + j);
                    bBlock[i * nc + j] = b(r0 + i, c0 + j);
                }
            }
            for (int x = 0; x < 2; x++) {
                aPanel[x] = new double[mr * maxW];
                bPanel[x] = new double[maxW * nc];
            }
            long maxBytes = 8L * maxW * Math.max(maxMr, maxNc);
            ctx.resizeMemoryRegister(pr + pc + 4);
            ctx.resizeMessageQueue(2L * (pr + pc));
            ctx.sync();
            rowColl = new Collectives[pr];
            colColl = new Collectives[pc];
            for (int x = 0; x < pr; x++) {
                rowColl[x] = Collectives.initStrided(ctx, x * pc, (x + 1) * pc, 1, 1, 0, maxBytes).algorithm(Algorithm.DIRECT);
            }
            for (int x = 0; x < pc; x++) {
                colColl[x] = Collectives.initStrided(ctx, x, p, pc, 1, 0, maxBytes).algorithm(Algorithm.DIRECT);
            }
            for (int x = 0; x < 2; x++) {
                aPanelSlot[x] = ctx.registerGlobal(MemorySegment.ofArray(aPanel[x]));
                bPanelSlot[x] = ctx.registerGlobal(MemorySegment.ofArray(bPanel[x]));
            }
            ctx.sync();
        }

        /** @return {@code b[k] = ⌊n·k/parts⌋}, k = 0..parts */
        private static int[] bounds(int n, int parts) {
            int[] b = new int[parts + 1];
            for (int k = 0; k <= parts; k++) b[k] = (int) ((long) n * k / parts);
            return b;
        }

        /** @return the block k with {@code bounds[k] ≤ x < bounds[k+1]} (the last such if blocks are empty) */
        private static int blockOf(int[] bounds, int x) {
            int k = 0;
            while (k + 1 < bounds.length - 1 && bounds[k + 1] <= x) k++;
            return k;
        }

        @Override
        public void reset() {
            // A and B are not modified; run() clears C.
        }

        @Override
        public void run() {
            Arrays.fill(cBlock, 0);
            for (int t = 0; t <= segments; t++) {
                if (t < segments) post(t, t & 1);
                if (t > 0) {
                    int u = t - 1;
                    multiplyAdd(aPanel[u & 1], bPanel[u & 1], cBlock, mr, nc, segStart[u + 1] - segStart[u]);
                }
                ctx.sync();
            }
        }

        /** Queues the broadcasts of segment t's panels into buffer x (owners copy theirs in first). */
        private void post(int t, int x) {
            int k0 = segStart[t], w = segStart[t + 1] - k0;
            int jc = segOwnerCol[t], ir = segOwnerRow[t];
            if (c == jc) {
                int from = k0 - colBounds[jc];
                for (int i = 0; i < mr; i++) System.arraycopy(aBlock, i * nc + from, aPanel[x], i * w, w);
            }
            if (r == ir) System.arraycopy(bBlock, (k0 - rowBounds[ir]) * nc, bPanel[x], 0, w * nc);
            rowColl[r].broadcast(aPanelSlot[x], aPanelSlot[x], 8L * w * mr, r * pc + jc);
            colColl[c].broadcast(bPanelSlot[x], bPanelSlot[x], 8L * w * nc, ir * pc + c);
        }

        /** @return a copy of this process's C block, mr×nc row-major */
        public double[] block() { return cBlock.clone(); }

        /** @return the first row of this process's block */
        public int firstRow() { return rowBounds[r]; }

        /** @return the first column of this process's block */
        public int firstColumn() { return colBounds[c]; }

        /** @return the number of supersteps of one {@link #run()} */
        public int supersteps() { return segments + 1; }

        @Override
        public String check() {
            double[] expected = new double[mr * nc];
            int r0 = rowBounds[r], c0 = colBounds[c];
            double[] bRow = new double[nc];
            for (int k = 0; k < n; k++) {
                for (int j = 0; j < nc; j++) bRow[j] = b(k, c0 + j);
                for (int i = 0; i < mr; i++) {
                    double aik = a(r0 + i, k);
                    for (int j = 0; j < nc; j++) expected[i * nc + j] += aik * bRow[j];
                }
            }
            for (int i = 0; i < mr * nc; i++) {
                if (expected[i] != cBlock[i]) {
                    throw new IllegalStateException("MatrixMultiply (n=" + n + ", p=" + p + ", grid " + pr + "x" + pc
                            + ") at pid " + ctx.pid() + ": C(" + (r0 + i / nc) + ", " + (c0 + i % nc) + ") = "
                            + cBlock[i] + ", sequentially " + expected[i]);
                }
            }
            return String.format("SUMMA multiplication of two %dx%d matrices on a %dx%d grid, %d supersteps: "
                    + "every block equals the sequential product (checked on each process)", n, n, pr, pc, segments + 1);
        }

        @Override
        public void close() {
            ctx.sync();
            for (Collectives x : rowColl) x.close();
            for (Collectives x : colColl) x.close();
            for (int x = 0; x < 2; x++) {
                ctx.deregister(aPanelSlot[x]);
                ctx.deregister(bPanelSlot[x]);
            }
        }
    }
}
