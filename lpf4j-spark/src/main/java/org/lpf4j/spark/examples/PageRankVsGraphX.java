package org.lpf4j.spark.examples;

import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.graphx.Edge;
import org.apache.spark.graphx.Graph;
import org.apache.spark.graphx.lib.PageRank;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.LongAccumulator;
import org.lpf4j.Context;
import org.lpf4j.spark.BspStage;
import scala.Tuple2;
import scala.reflect.ClassTag;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The comparison a Spark user makes: PageRank of the same R-MAT graph, on the same executors and
 * for the same iterations, by GraphX's {@code PageRank.run} and by {@link BspPageRank} inside one
 * barrier stage; the ranks compared vertex by vertex; and one lpf4j sync inside a stage against
 * one Spark {@code barrier()}.
 *
 * <p>{@code main(scale edgeFactor iterations partitions [master])} prints the figures; the master
 * defaults to Spark's ({@code spark.master}, as {@code spark-submit} sets it).
 */
public final class PageRankVsGraphX {
    private PageRankVsGraphX() {}

    /** GraphX's reset probability default. */
    public static final double RESET = 0.15;

    /**
     * What one comparison measured.
     *
     * @param vertices          vertices of the graph
     * @param maxRelativeDiff   the largest |r_bsp − r_graphx| / r_graphx over all vertices
     * @param graphxSeconds     GraphX from the cached edges to the collected ranks
     * @param graphxRunSeconds  GraphX's {@code PageRank.run} alone (graph built and cached before)
     * @param bspSeconds        BspStage from the cached edges to the collected ranks
     * @param bspLoopSeconds    the BSP iterations alone, at pid 0
     * @param iterations        the iterations
     * @param bspRanks          the BSP ranks, by vertex
     */
    public record Comparison(long vertices, double maxRelativeDiff, double graphxSeconds, double graphxRunSeconds,
                             double bspSeconds, double bspLoopSeconds, int iterations, Map<Long, Double> bspRanks) {
        /** @return GraphX's time per iteration over the BSP loop's */
        public double perIterationSpeedup() { return graphxRunSeconds / bspLoopSeconds; }

        @Override
        public String toString() {
            return String.format("PageRank, %d vertices, %d iterations: ranks agree within %.2e (relative);%n"
                            + "  GraphX  whole job %.3f s, PageRank.run %.3f s = %.2f ms per iteration%n"
                            + "  lpf4j   whole job %.3f s, iterations %.4f s = %.3f ms per iteration%n"
                            + "  per iteration lpf4j is %.0fx faster; whole job %.2fx", vertices, iterations, maxRelativeDiff,
                    graphxSeconds, graphxRunSeconds, 1e3 * graphxRunSeconds / iterations, bspSeconds, bspLoopSeconds,
                    1e3 * bspLoopSeconds / iterations, perIterationSpeedup(), graphxSeconds / bspSeconds);
        }
    }

    /**
     * @param arcs       the graph, cached (and counted) by the caller so that neither side pays for it
     * @param iterations the iterations
     * @return the figures and the BSP ranks
     */
    public static Comparison compare(JavaSparkContext spark, JavaRDD<Arc> arcs, int iterations) {
        ClassTag<Object> any = scala.reflect.ClassTag$.MODULE$.apply(Object.class);
        long t0 = System.nanoTime();
        Graph<Object, Object> graph = Graph.fromEdges(arcs.map(a -> new Edge<Object>(a.source(), a.target(), 1)).rdd(), 1,
                StorageLevel.MEMORY_ONLY(), StorageLevel.MEMORY_ONLY(), any, any);
        graph.cache();
        graph.edges().count();
        long t1 = System.nanoTime();
        Graph<Object, Object> ranked = PageRank.run(graph, iterations, RESET, any, any);
        long t2 = System.nanoTime();
        List<Tuple2<Object, Object>> graphx = ranked.vertices().toJavaRDD().collect();
        long t3 = System.nanoTime();
        graph.unpersist(false);

        LongAccumulator loop = spark.sc().longAccumulator("lpf4j PageRank loop nanos");
        long t4 = System.nanoTime();
        List<VertexRank> bsp = BspStage.of(arcs).mapPartitions(new BspPageRank(iterations, RESET, 0, null, loop)).collect();
        long t5 = System.nanoTime();

        Map<Long, Double> bspRanks = new HashMap<>();
        for (VertexRank r : bsp) bspRanks.put(r.vertex(), r.rank());
        double worst = 0;
        if (bspRanks.size() != graphx.size()) {
            throw new IllegalStateException("GraphX ranked " + graphx.size() + " vertices, lpf4j " + bspRanks.size());
        }
        for (Tuple2<Object, Object> v : graphx) {
            Double mine = bspRanks.get((Long) v._1());
            if (mine == null) throw new IllegalStateException("lpf4j has no rank for vertex " + v._1());
            double theirs = (Double) v._2();
            worst = Math.max(worst, Math.abs(mine - theirs) / Math.abs(theirs));
        }
        return new Comparison(graphx.size(), worst, (t1 - t0 + t3 - t1) / 1e9, (t2 - t1) / 1e9, (t5 - t4) / 1e9,
                loop.value() / 1e9, iterations, bspRanks);
    }

    /**
     * The BSP iterations alone, for the same graph on the same cluster, with an executor's tasks
     * as threads of one node or ({@code executorNodes} false, the way before) each a net-engine
     * process of its own.
     *
     * @return seconds of the iterations at pid 0
     */
    public static double loopSeconds(JavaSparkContext spark, JavaRDD<Arc> arcs, int iterations, boolean executorNodes) {
        LongAccumulator loop = spark.sc().longAccumulator("lpf4j PageRank loop nanos");
        BspStage.of(arcs).executorNodes(executorNodes).mapPartitions(new BspPageRank(iterations, RESET, 0, null, loop)).collect();
        return loop.value() / 1e9;
    }

    /**
     * One lpf4j sync against one Spark {@code barrier()}, inside the same barrier stage. The sync
     * is timed as {@code lpf run}'s benchmarks time it ({@link SyncLoop}): after enough warm-up
     * syncs for the JIT to have compiled the sync path, the median of 9 repetitions, so that one
     * slow moment (a collection, a compilation, another JVM taking a core) does not make the figure.
     *
     * @param input any RDD of p partitions
     * @param <T>   its elements
     * @param syncs how many empty syncs one repetition times
     * @return {seconds per sync (median), seconds per barrier, seconds per sync over the first
     *         {@code syncs} syncs after only 3000 warm-up ones (as this figure was once taken)} at pid 0
     */
    public static <T> double[] syncVersusBarrier(JavaRDD<T> input, int syncs) {
        List<double[]> out = BspStage.of(input).mapPartitions((Context ctx, Iterator<T> ignored) -> {
            BarrierTaskContext task = BarrierTaskContext.get();
            SyncLoop.Figures early = SyncLoop.time(ctx, 3000, 1, syncs);
            SyncLoop.Figures steady = SyncLoop.time(ctx, SyncLoop.WARM_UP, 9, syncs);
            long b = System.nanoTime();
            int barriers = 3;
            for (int i = 0; i < barriers; i++) task.barrier();
            long c = System.nanoTime();
            return List.of(new double[]{steady.medianMicros() / 1e6, (c - b) / 1e9 / barriers, early.medianMicros() / 1e6}).iterator();
        }).collect();
        return out.get(0);
    }

    /**
     * Prints the comparison.
     *
     * @param args scale, edge factor, iterations, partitions, and optionally the master
     */
    public static void main(String[] args) {
        if (args.length < 4) {
            System.err.println("usage: PageRankVsGraphX scale edgeFactor iterations partitions [master]");
            System.exit(2);
        }
        int scale = Integer.parseInt(args[0]), edgeFactor = Integer.parseInt(args[1]), iterations = Integer.parseInt(args[2]),
                partitions = Integer.parseInt(args[3]);
        SparkConf conf = new SparkConf().setAppName("lpf4j PageRank vs GraphX");
        if (args.length > 4) conf.setMaster(args[4]);
        try (JavaSparkContext spark = new JavaSparkContext(conf)) {
            spark.setLogLevel("WARN");
            JavaRDD<Arc> arcs = RmatArcs.rdd(spark, scale, edgeFactor, 1, partitions).cache();
            System.out.println(arcs.count() + " edges in " + partitions + " partitions");
            Comparison c = compare(spark, arcs, iterations);
            System.out.println(c);
            // Both ways again, taking turns, after the first stage warmed the JIT up.
            for (int turn = 0; turn < 2; turn++) {
                for (boolean nodes : new boolean[]{false, true}) {
                    double t = loopSeconds(spark, arcs, iterations, nodes);
                    System.out.printf("  lpf4j, %s: %.3f ms per iteration, %.0fx faster than GraphX%n", nodes
                            ? "an executor's tasks one node" : "a net process per task", 1e3 * t / iterations, c.graphxRunSeconds() / t);
                }
            }
            double[] s = syncVersusBarrier(arcs, 1000);
            System.out.printf("one lpf4j sync %.1f us (median; the first 1000 after 3000: %.1f us), one Spark barrier() %.3f s: "
                    + "the sync costs 1/%.0f of the barrier%n", s[0] * 1e6, s[2] * 1e6, s[1], s[1] / s[0]);
        }
    }
}
