package org.lpf4j.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.util.LongAccumulator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.spark.examples.Arc;
import org.lpf4j.spark.examples.BspPageRank;
import org.lpf4j.spark.examples.BspSort;
import org.lpf4j.spark.examples.PageRankVsGraphX;
import org.lpf4j.spark.examples.RmatArcs;
import org.lpf4j.spark.examples.VertexRank;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BspStage on a real Spark cluster: {@code local-cluster[2,1,1024]} starts a master, two workers
 * and two executors as JVMs of their own, which get lpf4j only as jars of the application
 * ({@code spark.jars}, the executors' own class loader). PageRank inside a barrier stage against
 * GraphX's, a sort against {@code sortBy}, a killed executor JVM mid-stage, and no executor left
 * after the context stops.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LocalClusterTest {
    static final int SCALE = 12, EDGE_FACTOR = 8, ITERATIONS = 10;
    private static JavaSparkContext spark;
    private static Path work;
    private static JavaRDD<Arc> arcs;
    private static Map<Long, Double> faultFreeRanks;

    @BeforeAll
    static void start() throws Exception {
        work = Files.createTempDirectory("lpf4j-spark-cluster");
        spark = new JavaSparkContext(conf("local-cluster[2,1,1024]", "LocalClusterTest", executorJars(work.resolve("jars"))));
        spark.setLogLevel("ERROR");
        arcs = RmatArcs.rdd(spark, SCALE, EDGE_FACTOR, 1, 2).cache();
        assertEquals((long) EDGE_FACTOR << SCALE, arcs.count());
    }

    @AfterAll
    static void stop() throws Exception {
        stop(spark, work);
    }

    /**
     * The configuration of a test's {@code local-cluster}: driver and executors on loopback, no UI,
     * 768 MiB executors, barrier stages that wait for their slots, and {@code jars} for the executors.
     */
    static SparkConf conf(String master, String appName, String[] jars) {
        return new SparkConf().setMaster(master).setAppName(appName)
                .set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.ui.enabled", "false").set("spark.executor.memory", "768m")
                // A blocked sync allocates in the JDK's selector without it (docs/spark.md, "Executor option").
                .set("spark.executor.extraJavaOptions", "-XX:AutoBoxCacheMax=65536")
                .set("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "1s")
                .set("spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures", "60")
                .setJars(jars);
    }

    /**
     * Stops {@code spark} (if it started), waits up to 20 s for its executor JVMs to end, kills any
     * left and fails naming them, and deletes {@code work}.
     */
    static void stop(JavaSparkContext spark, Path work) throws Exception {
        String app = spark == null ? null : spark.sc().applicationId();
        try {
            if (spark != null) spark.close();
        } finally {
            if (app != null) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!executors(app).isEmpty() && System.nanoTime() < deadline) Thread.sleep(100);
                List<ProcessHandle> left = executors(app);
                left.forEach(ProcessHandle::destroyForcibly);
                assertTrue(left.isEmpty(), "executor JVMs left after the context stopped: " + left);
            }
            if (work != null) deleteAll(work);
        }
    }

    /**
     * The jars of lpf4j that the executors load as the application's: each module's classes and
     * these tests, and the jars (or class directories, made jars) of {@code more} classes.
     */
    static String[] executorJars(Path dir, String... more) throws IOException {
        Files.createDirectories(dir);
        List<String> jars = new ArrayList<>();
        List<String> anchors = new ArrayList<>(List.of("org.lpf4j.Context", "org.lpf4j.superstep.SuperstepContext",
                "org.lpf4j.engine.net.HostedSection", "org.lpf4j.cr.Checkpoints", "org.lpf4j.coll.Collectives", "org.lpf4j.bsmp.Bsmp",
                "org.lpf4j.examples.Rmat", "org.lpf4j.engine.threads.ThreadsEngineProvider", "org.lpf4j.engine.hybrid.HostedNode",
                "org.lpf4j.spark.BspStage", LocalClusterTest.class.getName()));
        anchors.addAll(List.of(more));
        for (String anchor : anchors) {
            Path where;
            try {
                where = Path.of(Class.forName(anchor, false, LocalClusterTest.class.getClassLoader()).getProtectionDomain().getCodeSource().getLocation().toURI());
            } catch (ReflectiveOperationException | java.net.URISyntaxException e) {
                throw new IllegalStateException("cannot find the classes of " + anchor, e);
            }
            if (Files.isDirectory(where)) {
                Path jar = dir.resolve(jars.size() + "-" + where.getParent().getFileName() + "-" + where.getFileName() + ".jar");
                jarUp(where, jar);
                where = jar;
            }
            String uri = where.toUri().toString();
            if (!jars.contains(uri)) jars.add(uri);
        }
        return jars.toArray(String[]::new);
    }

    static void jarUp(Path classes, Path jar) throws IOException {
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
             Stream<Path> all = Files.walk(classes)) {
            for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
                Files.copy(p, out);
                out.closeEntry();
            }
        }
    }

    /** The executor JVMs of an application. */
    static List<ProcessHandle> executors(String app) {
        return ProcessHandle.allProcesses().filter(h -> h.info().commandLine()
                .map(c -> c.contains("CoarseGrainedExecutorBackend") && c.contains(app)).orElse(false)).toList();
    }

    static void deleteAll(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) return;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(java.util.Comparator.reverseOrder())::iterator) Files.deleteIfExists(p);
        }
    }

    @Test
    @Order(1)
    void pageRankInsideABarrierStageGivesGraphXsRanks() {
        assertEquals(2, executors(spark.sc().applicationId()).size(), "two executor JVMs");
        PageRankVsGraphX.Comparison c = PageRankVsGraphX.compare(spark, arcs, ITERATIONS);
        System.out.println(c);
        assertTrue(c.vertices() > 1000, "the graph has its vertices: " + c.vertices());
        assertTrue(c.maxRelativeDiff() <= 1e-9, "ranks within 1e-9 of GraphX's: " + c.maxRelativeDiff());
        faultFreeRanks = c.bspRanks();
    }

    @Test
    @Order(2)
    void aSortInsideABarrierStageGivesSortBysOrder() {
        Random random = new Random(7);
        List<Long> keys = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) keys.add(random.nextLong() % 1_000_000);
        JavaRDD<Long> input = spark.parallelize(keys, 2);
        List<Long> bsp = BspStage.of(input).mapPartitions(new BspSort()).collect();
        List<Long> spark = input.sortBy(x -> x, true, 2).collect();
        assertEquals(spark, bsp, "the same keys in the same order");
    }

    @Test
    @Order(3)
    void oneSyncCostsAFractionOfASparkBarrier() {
        // The figure (target: 1/1000 or less) is measured on a quiet machine (docs/performance.md);
        // here, sharing two cores with the rest of the build, only a gross regression fails.
        double[] s = PageRankVsGraphX.syncVersusBarrier(arcs, 1000);
        System.out.printf("one lpf4j sync %.1f us, one Spark barrier() %.3f s%n", s[0] * 1e6, s[1]);
        assertTrue(s[0] * 50 <= s[1], "sync " + s[0] + " s, barrier " + s[1] + " s");
        assertTrue(s[0] > 0 && s[2] > 0, "the median and the early window are both timed: " + java.util.Arrays.toString(s));
    }

    @Test
    @Order(4)
    void aKilledExecutorFailsTheStageAndTheRetryResumesFromTheCheckpoint() throws Exception {
        String app = spark.sc().applicationId();
        Path checkpoints = Files.createDirectories(work.resolve("checkpoints"));
        LongAccumulator resumedAt = spark.sc().longAccumulator("resumed at");
        JavaRDD<VertexRank> stage = BspStage.of(arcs).checkpoints(checkpoints.toString(), "100ms")
                .parameter("lpf.cr.files.keep", "2")
                .mapPartitions(new BspPageRank(ITERATIONS, PageRankVsGraphX.RESET, 150, resumedAt, null));
        Thread killer = Thread.ofPlatform().daemon().start(() -> {
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                while (System.nanoTime() < deadline && !committed(checkpoints)) Thread.sleep(20);
                Thread.sleep(new Random().nextInt(300));
                List<ProcessHandle> executors = executors(app);
                if (!executors.isEmpty()) executors.get(new Random().nextInt(executors.size())).destroyForcibly();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        List<VertexRank> ranks = stage.collect();
        killer.join(TimeUnit.SECONDS.toMillis(5));
        assertTrue(resumedAt.value() > 0, "the retry resumed from a checkpoint, not from iteration 0");
        Map<Long, Double> byVertex = new HashMap<>();
        for (VertexRank r : ranks) byVertex.put(r.vertex(), r.rank());
        if (faultFreeRanks != null) assertEquals(faultFreeRanks, byVertex, "the same ranks, bit for bit, as the run without a fault");
        assertEquals(2, executors(app).size(), "Spark replaced the killed executor");
    }

    private static boolean committed(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.anyMatch(p -> p.getFileName().toString().equals("COMMITTED"));
        } catch (java.io.UncheckedIOException e) {
            // A file renamed or removed while the walk read its directory (the run's reached-….tmp): look again.
            if (e.getCause() instanceof java.nio.file.NoSuchFileException) return false;
            throw e;
        }
    }
}
