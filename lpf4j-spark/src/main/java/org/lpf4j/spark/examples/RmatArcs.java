package org.lpf4j.spark.examples;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.lpf4j.examples.Rmat;

import java.util.ArrayList;
import java.util.List;

/**
 * A seeded R-MAT graph ({@link Rmat}: 2^scale vertices, edgeFactor·2^scale edges, Graph500's
 * quadrant probabilities) as an RDD of {@link Arc}s. Partition i generates the edges
 * {@code [i·M/parts, (i+1)·M/parts)} from the seed alone, so any recomputation (a retried stage)
 * yields the same edges in the same order.
 */
public final class RmatArcs {
    private RmatArcs() {}

    /**
     * @param spark      the context
     * @param scale      log2 of the vertex count, 1 … 30
     * @param edgeFactor edges per vertex
     * @param seed       the graph's seed
     * @param partitions the RDD's partitions
     * @return the edges (not cached)
     */
    public static JavaRDD<Arc> rdd(JavaSparkContext spark, int scale, int edgeFactor, long seed, int partitions) {
        if (scale < 1 || scale > 30 || edgeFactor < 1 || partitions < 1) {
            throw new IllegalArgumentException("RmatArcs.rdd(scale=" + scale + ", edgeFactor=" + edgeFactor + ", partitions="
                    + partitions + "): need 1 <= scale <= 30, edgeFactor >= 1, partitions >= 1");
        }
        long m = (long) edgeFactor << scale;
        List<Integer> blocks = new ArrayList<>();
        for (int i = 0; i < partitions; i++) blocks.add(i);
        return spark.parallelize(blocks, partitions).flatMap(i -> {
            long lo = m * i / partitions, hi = m * (i + 1) / partitions;
            List<Arc> arcs = new ArrayList<>((int) (hi - lo));
            for (long e = lo; e < hi; e++) {
                long bits = Rmat.edge(seed, e, scale);
                arcs.add(new Arc(bits >>> 32, bits & 0xFFFF_FFFFL));
            }
            return arcs.iterator();
        });
    }
}
