package org.lpf4j.bench.programs;

import org.lpf4j.examples.MatrixMultiply;

import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * A plainly written blocked parallel multiply: row-major n×n arrays, a parallel stream over
 * blocks of 32 rows of C, and inside each a k/j-tiled i-k-j loop with the lpf4j program's tile
 * sizes. The lpf4j program's local kernel also unrolls the k loop by four (fewer loads and stores
 * of C, so faster: figures in {@code docs/performance-log.md}); the ratio lpf4j / peer thus
 * measures that kernel together with the distribution and communication.
 */
final class MatmulPeer extends PoolPeer {
    private static final int ROWS = 32, KB = 128, JB = 256;
    private final int n;
    private final double[] a, b, c;

    MatmulPeer(int threads, int n) {
        super(threads);
        this.n = n;
        a = new double[n * n];
        b = new double[n * n];
        c = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                a[i * n + j] = MatrixMultiply.a(i, j);
                b[i * n + j] = MatrixMultiply.b(i, j);
            }
        }
    }

    @Override
    public void reset() { Arrays.fill(c, 0); }

    @Override
    void compute() {
        IntStream.range(0, (n + ROWS - 1) / ROWS).parallel().forEach(block -> {
            int i0 = block * ROWS, i1 = Math.min(n, i0 + ROWS);
            for (int kb = 0; kb < n; kb += KB) {
                int ke = Math.min(n, kb + KB);
                for (int jb = 0; jb < n; jb += JB) {
                    int je = Math.min(n, jb + JB);
                    for (int i = i0; i < i1; i++) {
                        for (int k = kb; k < ke; k++) {
                            double aik = a[i * n + k];
                            for (int j = jb; j < je; j++) c[i * n + j] += aik * b[k * n + j];
                        }
                    }
                }
            }
        });
    }

    @Override
    public void check() {
        int[] probes = {0, n / 3, n - 1};
        for (int i : probes) {
            for (int j : probes) {
                double want = 0;
                for (int k = 0; k < n; k++) want += MatrixMultiply.a(i, k) * MatrixMultiply.b(k, j);
                if (c[i * n + j] != want) {
                    throw new IllegalStateException("MatmulPeer: C(" + i + ", " + j + ") = " + c[i * n + j] + ", want " + want);
                }
            }
        }
    }
}
