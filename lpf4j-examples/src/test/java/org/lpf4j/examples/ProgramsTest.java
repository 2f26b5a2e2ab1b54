package org.lpf4j.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The BSP programs at p = 1 … 8 with small sizes: each program's own check passes, a run
 * repeated after {@code reset()} gives the same result, and the distributed results, collected
 * here, equal an independent sequential computation.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProgramsTest {

    /** Runs {@code spmd} through {@code exec} with {@code symbols}; returns process 0's report. */
    private static String report(int p, Spmd spmd, Object... symbols) {
        MemorySegment output = Arena.ofAuto().allocate(1024);
        Lpf.root().exec(p, spmd, Args.of(MemorySegment.NULL, output, symbols));
        return output.getString(0);
    }

    /**
     * Runs sample sort twice (the second time after {@code reset()}), checks it, and compares the
     * collected parts with {@code Arrays.sort} of the input.
     */
    static void assertSampleSortEqualsArraysSort(int p, long n, long seed, long keys) {
        long[][] parts = new long[p][];
        Lpf.root().exec(p, ctx -> {
            try (SampleSort.Instance run = SampleSort.prepare(ctx, n, seed, keys)) {
                run.run();
                run.reset();
                run.run();
                run.check();
                parts[ctx.pid()] = run.sorted();
            }
        });
        long[] expected = new long[(int) n];
        for (int i = 0; i < n; i++) expected[i] = SampleSort.value(seed, i, keys);
        Arrays.sort(expected);
        long[] got = Arrays.stream(parts).flatMapToLong(Arrays::stream).toArray();
        assertArrayEquals(expected, got, "n=" + n + " p=" + p + " keys=" + keys);
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void sampleSortEqualsArraysSort(int p) {
        for (long n : new long[] {0, 1, 5, 37, 4000}) assertSampleSortEqualsArraysSort(p, n, 11, 0);
        assertTrue(report(p, new SampleSort(), "3000").contains("sequential check: equal"));
    }

    @Test
    void sampleSortWithManyEqualKeysStillSorts() {
        // one key: every value lands in one bucket, which grows that receiver's arrays; 3 keys: uneven buckets
        for (long keys : new long[] {1, 3}) assertSampleSortEqualsArraysSort(4, 5000, 1, keys);
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void matrixMultiplyEqualsTheTripleLoop(int p) {
        for (int n : new int[] {1, 3, 17, 40}) {
            double[] c = new double[n * n];
            Lpf.root().exec(p, ctx -> {
                try (MatrixMultiply.Instance run = MatrixMultiply.prepare(ctx, n)) {
                    run.run();
                    run.run();
                    run.check();
                    double[] block = run.block();
                    int rows = 0, cols = 0;
                    int pr = MatrixMultiply.gridRows(p), pc = p / pr;
                    int r = ctx.pid() / pc, q = ctx.pid() % pc;
                    rows = (int) ((long) n * (r + 1) / pr) - run.firstRow();
                    cols = (int) ((long) n * (q + 1) / pc) - run.firstColumn();
                    synchronized (c) {
                        for (int i = 0; i < rows; i++) {
                            for (int j = 0; j < cols; j++) c[(run.firstRow() + i) * n + run.firstColumn() + j] = block[i * cols + j];
                        }
                    }
                }
            });
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    double want = 0;
                    for (int k = 0; k < n; k++) want += MatrixMultiply.a(i, k) * MatrixMultiply.b(k, j);
                    assertEquals(want, c[i * n + j], "C(" + i + "," + j + ") n=" + n + " p=" + p);
                }
            }
        }
        assertTrue(report(p, new MatrixMultiply(), "24").contains("equals the sequential product"));
    }

    @Test
    void gridIsTheMostSquareFactorisation() {
        assertEquals(1, MatrixMultiply.gridRows(1));
        assertEquals(1, MatrixMultiply.gridRows(2));
        assertEquals(1, MatrixMultiply.gridRows(3));
        assertEquals(2, MatrixMultiply.gridRows(4));
        assertEquals(1, MatrixMultiply.gridRows(5));
        assertEquals(2, MatrixMultiply.gridRows(6));
        assertEquals(2, MatrixMultiply.gridRows(8));
        assertEquals(3, MatrixMultiply.gridRows(9));
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void fftEqualsThePlainDft(int p) {
        for (int n : new int[] {1, 2, 16, 64, 256}) {
            double[] x = Fft.wholeInput(n, 5);
            double[] want = LocalFft.dft(x);
            double[] got = new double[2 * n];
            boolean[] seen = new boolean[n];
            Lpf.root().exec(p, ctx -> {
                try (Fft.Instance run = Fft.prepare(ctx, n, 5)) {
                    run.run();
                    run.reset();
                    run.run();
                    run.check();
                    double[] out = run.output();
                    synchronized (got) {
                        for (int i = 0; i < out.length / 2; i++) {
                            int k = (int) run.globalIndex(i);
                            got[2 * k] = out[2 * i];
                            got[2 * k + 1] = out[2 * i + 1];
                            seen[k] = true;
                        }
                    }
                }
            });
            for (int k = 0; k < n; k++) {
                assertTrue(seen[k], "X[" + k + "] computed, n=" + n);
                assertEquals(want[2 * k], got[2 * k], 1e-9 * n, "re X[" + k + "] n=" + n + " p=" + p);
                assertEquals(want[2 * k + 1], got[2 * k + 1], 1e-9 * n, "im X[" + k + "] n=" + n + " p=" + p);
            }
        }
        assertTrue(report(p, new Fft(), "1024").contains("of the sequential FFT"));
    }

    @Test
    void fftUsesThePowerOfTwoProcessesThatFit() {
        assertEquals(1, Fft.activeProcesses(1, 1024));
        assertEquals(2, Fft.activeProcesses(3, 1024));
        assertEquals(4, Fft.activeProcesses(5, 1024));
        assertEquals(8, Fft.activeProcesses(8, 1024));
        assertEquals(2, Fft.activeProcesses(8, 4)); // n >= P^2
        FatalException e = assertThrows(FatalException.class, () -> report(2, new Fft(), "1000"));
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
    }

    @Test
    void fftWithLongLocalLengthsMatchesTheSequentialFft() {
        // local length 2^14 at p = 2 and 2^13 at p = 4, checked against the whole sequential transform
        assertTrue(report(2, new Fft(), "32768").contains("of the sequential FFT"));
        assertTrue(report(4, new Fft(), "32768").contains("of the sequential FFT"));
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void pageRankEqualsTheSequentialIteration(int p) {
        int scale = 8, ef = 8, iterations = 20;
        double[] got = new double[1 << scale];
        Lpf.root().exec(p, ctx -> {
            try (PageRank.Instance run = PageRank.prepare(ctx, scale, ef, iterations, 4)) {
                run.run();
                run.run();
                run.check();
                double[] r = run.ranks();
                synchronized (got) {
                    System.arraycopy(r, 0, got, run.firstVertex(), r.length);
                }
            }
        });
        // independent reference: power iteration straight from the edge list
        int nv = 1 << scale;
        long m = (long) ef * nv;
        int[] deg = new int[nv];
        for (long e = 0; e < m; e++) deg[(int) (Rmat.edge(4, e, scale) >>> 32)]++;
        double[] r = new double[nv];
        Arrays.fill(r, 1.0 / nv);
        for (int it = 0; it < iterations; it++) {
            double dangling = 0;
            for (int v = 0; v < nv; v++) if (deg[v] == 0) dangling += r[v];
            double[] next = new double[nv];
            Arrays.fill(next, (1 - PageRank.DAMPING) / nv + PageRank.DAMPING * dangling / nv);
            for (long e = 0; e < m; e++) {
                long uv = Rmat.edge(4, e, scale);
                int u = (int) (uv >>> 32), v = (int) uv;
                next[v] += PageRank.DAMPING * r[u] / deg[u];
            }
            r = next;
        }
        double total = 0;
        for (int v = 0; v < nv; v++) {
            assertEquals(r[v], got[v], 1e-12, "rank[" + v + "] p=" + p);
            total += got[v];
        }
        assertEquals(1.0, total, 1e-9, "ranks sum to one");
        assertTrue(report(p, new PageRank(), "7", "4", "5").contains("equal the sequential ones"));
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void heatEqualsTheJacobiStepWrittenCellByCell(int p) {
        int n = 19, steps = 25;
        double[] got = new double[n * n];
        Lpf.root().exec(p, ctx -> {
            try (Heat.Instance run = Heat.prepare(ctx, n, steps)) {
                run.run();
                run.reset();
                run.run();
                run.check();
                double[] r = run.rows();
                synchronized (got) {
                    System.arraycopy(r, 0, got, run.firstRow() * n, r.length);
                }
            }
        });
        // independent reference: walls by case analysis, the same evaluation order per cell
        double[][] u = new double[n][n];
        for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) u[i][j] = Heat.initial(n, i, j);
        for (int s = 0; s < steps; s++) {
            double[][] v = new double[n][n];
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    double up = i == 0 ? Heat.HOT : u[i - 1][j], down = i == n - 1 ? 0 : u[i + 1][j];
                    double left = j == 0 ? 0 : u[i][j - 1], right = j == n - 1 ? 0 : u[i][j + 1];
                    v[i][j] = 0.25 * ((up + down) + (left + right));
                }
            }
            u = v;
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                assertEquals(Double.doubleToRawLongBits(u[i][j]), Double.doubleToRawLongBits(got[i * n + j]),
                        "cell (" + i + ", " + j + ") p=" + p);
            }
        }
        assertTrue(report(p, new Heat(), "30", "12").contains("check ok"));
    }

    @Test
    void rmatIsAPowerLawAndScrambleIsABijection() {
        int scale = 10;
        boolean[] hit = new boolean[1 << scale];
        for (int x = 0; x < 1 << scale; x++) hit[Rmat.scramble(x, scale)] = true;
        for (boolean h : hit) assertTrue(h);
        int[] in = new int[1 << scale];
        for (long e = 0; e < 16L << scale; e++) in[(int) Rmat.edge(1, e, scale)]++;
        int max = Arrays.stream(in).max().orElseThrow();
        assertTrue(max > 20 * 16, "a hub with far more than the mean in-degree 16: " + max);
    }

    @Test
    void badSymbolsFailTheSectionWithTheirName() {
        FatalException e = assertThrows(FatalException.class, () -> report(2, new SampleSort(), "many"));
        assertTrue(e.getCause().getMessage().contains("'many'"), e.getCause().getMessage());
    }
}
