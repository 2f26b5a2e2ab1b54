package org.lpf4j.bench.programs;

import org.lpf4j.examples.PageRank;
import org.lpf4j.examples.Rmat;

import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * PageRank written with parallel streams over the whole graph in CSR form (the same rows, in the
 * same order, as the lpf4j program's): per iteration a parallel sum of the dangling rank, a
 * parallel pass dividing by the out-degrees, and a parallel CSR SpMV.
 */
final class PageRankPeer extends PoolPeer {
    private final Rmat.Csr graph;
    private final int iterations, nv;
    private final double[] rank, z;

    PageRankPeer(int threads, Rmat.Csr graph, int iterations) {
        super(threads);
        this.graph = graph;
        this.iterations = iterations;
        nv = graph.rows();
        rank = new double[nv];
        z = new double[nv];
    }

    @Override
    public void reset() { Arrays.fill(rank, 1.0 / nv); }

    @Override
    void compute() {
        int[] rowPtr = graph.rowPtr(), col = graph.col(), deg = graph.outDeg();
        double d = PageRank.DAMPING;
        for (int it = 0; it < iterations; it++) {
            double dangling = IntStream.range(0, nv).parallel()
                    .mapToDouble(v -> deg[v] == 0 ? rank[v] : 0).reduce(0, Double::sum);
            IntStream.range(0, nv).parallel().forEach(v -> z[v] = deg[v] == 0 ? 0 : rank[v] / deg[v]);
            double base = (1 - d) / nv + d * dangling / nv;
            IntStream.range(0, nv).parallel().forEach(v -> {
                double sum = 0;
                for (int e = rowPtr[v], end = rowPtr[v + 1]; e < end; e++) sum += z[col[e]];
                rank[v] = base + d * sum;
            });
        }
    }

    @Override
    public void check() {
        double[] want = PageRank.sequential(graph, iterations);
        for (int v = 0; v < nv; v++) {
            if (!(Math.abs(rank[v] - want[v]) <= 1e-9 * want[v])) {
                throw new IllegalStateException("PageRankPeer: rank[" + v + "] = " + rank[v] + ", sequentially " + want[v]);
            }
        }
    }
}
