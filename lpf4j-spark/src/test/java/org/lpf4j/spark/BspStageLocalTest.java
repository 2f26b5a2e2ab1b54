package org.lpf4j.spark;

import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.graphx.Edge;
import org.apache.spark.graphx.Graph;
import org.apache.spark.graphx.lib.ConnectedComponents;
import org.apache.spark.storage.StorageLevel;
import org.lpf4j.spark.examples.Arc;
import org.lpf4j.spark.examples.BspConnectedComponents;
import org.lpf4j.spark.examples.SyncLoop;
import org.lpf4j.spark.examples.VertexComponent;
import scala.Tuple2;
import scala.reflect.ClassTag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.bsmp.Bsmp;
import org.lpf4j.bsmp.BsmpMessage;
import org.lpf4j.coll.Collectives;
import org.lpf4j.cr.CheckpointDirectory;
import org.lpf4j.cr.Checkpoints;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;

import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.Random;
import java.util.Map;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BspStage in Spark's local mode (every task a thread of this JVM, over real loopback sockets):
 * the API's contract at p = 1, 2, 3, 4, 5, 8, the libraries inside a stage (connected components
 * against GraphX's), failures and the
 * retry that resumes from a checkpoint, and that a stage leaves no thread or socket behind.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BspStageLocalTest {
    private static JavaSparkContext spark;
    /** Syncs of the endless stage's processes (they run in this JVM: local mode). */
    private static final AtomicLong ENDLESS_SYNCS = new AtomicLong();

    @BeforeAll
    static void start() {
        SparkConf conf = new SparkConf().setMaster("local[8,2]").setAppName("BspStageLocalTest")
                .set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.ui.enabled", "false").set("spark.stage.maxConsecutiveAttempts", "2")
                .set("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "1s");
        spark = new JavaSparkContext(conf);
        spark.setLogLevel("ERROR");
    }

    @AfterAll
    static void stop() {
        if (spark != null) spark.close();
    }

    private static JavaRDD<Long> numbers(long n, int partitions) {
        List<Long> all = new ArrayList<>();
        for (long i = 1; i <= n; i++) all.add(i);
        return spark.parallelize(all, partitions);
    }

    /** Reserves register slots and queue entries, and makes them usable (one sync). */
    static void reserve(Context ctx, long slots, long messages) {
        ctx.resizeMemoryRegister(slots);
        ctx.resizeMessageQueue(messages);
        ctx.sync();
    }

    @ParameterizedTest(name = "p = {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void everyPartitionIsAProcessAndReturnsItsPartition(int p) {
        long n = 1000;
        List<long[]> out = BspStage.of(numbers(n, p)).mapPartitions((Context ctx, Iterator<Long> partition) -> {
            long mine = 0, count = 0;
            while (partition.hasNext()) {
                mine += partition.next();
                count++;
            }
            reserve(ctx, 2, ctx.nprocs());
            MemorySegment all = Arena.ofAuto().allocate(8L * ctx.nprocs(), 8);
            MemorySegment own = Arena.ofAuto().allocate(8, 8);
            own.set(ValueLayout.JAVA_LONG, 0, mine);
            Memslot allSlot = ctx.registerGlobal(all), ownSlot = ctx.registerLocal(own);
            ctx.sync();
            for (int q = 0; q < ctx.nprocs(); q++) ctx.put(ownSlot, 0, q, allSlot, 8L * ctx.pid(), 8);
            ctx.sync();
            long total = 0;
            for (int q = 0; q < ctx.nprocs(); q++) total += all.get(ValueLayout.JAVA_LONG, 8L * q);
            return List.of(new long[]{ctx.pid(), ctx.nprocs(), count, mine, total}).iterator();
        }).collect();
        assertEquals(p, out.size(), "one element per partition");
        long counted = 0;
        for (int i = 0; i < p; i++) {
            long[] r = out.get(i);
            assertEquals(i, r[0], "partition " + i + " is pid " + i);
            assertEquals(p, r[1], "nprocs = partitions");
            assertEquals(n * (n + 1) / 2, r[4], "pid " + i + " saw every partition's sum");
            counted += r[2];
        }
        assertEquals(n, counted, "every element was read by exactly one process");
    }

    @Test
    void theSyncLoopTimesItsSyncsAtEveryProcess() {
        // SyncLoop is what docs/performance.md's "Inside Spark" figures come from (SyncGap, PageRankVsGraphX).
        List<SyncLoop.Figures> out = BspStage.of(numbers(2, 2)).mapPartitions((Context ctx, Iterator<Long> ignored) -> {
            SyncLoop.Figures f = SyncLoop.time(ctx, 10, 3, 20);
            ctx.sync();
            return List.of(f).iterator();
        }).collect();
        assertEquals(2, out.size());
        for (SyncLoop.Figures f : out) {
            assertTrue(f.minMicros() > 0 && f.medianMicros() >= f.minMicros(), f.toString());
            // The others' cores are the process's CPU less this thread's over the loop: two clocks read at different
            // moments, so a short loop's figure can come out below 0 (a CI run saw -1.2); only long loops read it.
            assertTrue(f.cpuMicros() >= 0 && Double.isFinite(f.othersCores()), f.toString());
            assertTrue(f.voluntary() >= 0 && f.involuntary() >= 0, "Linux says how often the thread was switched: " + f);
        }
    }

    /**
     * The tasks of one executor (here: the local one) are threads of one node by default, whose
     * puts are copies; with {@code executorNodes(false)} each is a net-engine process of its own.
     * Either way a ring of puts arrives at the right pids.
     */
    @ParameterizedTest(name = "executorNodes = {0}")
    @ValueSource(booleans = {true, false})
    void theTasksOfAnExecutorAreThreadsOfOneNodeUnlessToldOtherwise(boolean nodes) {
        int p = 5;
        List<String> out = BspStage.of(numbers(10, p)).executorNodes(nodes).mapPartitions((Context ctx, Iterator<Long> partition) -> {
            reserve(ctx, 1, 1);
            MemorySegment m = Arena.ofAuto().allocate(16, 8);
            m.set(ValueLayout.JAVA_LONG, 0, ctx.pid());
            Memslot slot = ctx.registerGlobal(m);
            ctx.sync();
            ctx.put(slot, 0, (ctx.pid() + 1) % ctx.nprocs(), slot, 8, 8);
            ctx.sync();
            return List.of(ctx.getClass().getSimpleName() + " " + ctx.pid() + " " + m.get(ValueLayout.JAVA_LONG, 8)).iterator();
        }).collect();
        for (int i = 0; i < p; i++) {
            assertEquals((nodes ? "HybridContext " : "NetContext ") + i + " " + (i + p - 1) % p, out.get(i), "partition " + i);
        }
    }

    @Test
    void collectivesAndBsmpWorkInsideAStage() {
        int p = 4;
        List<long[]> out = BspStage.of(numbers(40, p)).mapPartitions((Context ctx, Iterator<Long> partition) -> {
            long mine = 0;
            while (partition.hasNext()) mine += partition.next();
            int np = ctx.nprocs();
            reserve(ctx, 8 + Bsmp.REGISTER_ENTRIES, 4L * np + Bsmp.queueEntries(np, 1));
            MemorySegment element = Arena.ofAuto().allocate(8, 8);
            element.set(ValueLayout.JAVA_LONG, 0, mine);
            Memslot slot = ctx.registerGlobal(element);
            long reduced;
            try (Collectives coll = Collectives.init(ctx, 1, 8, 8)) {
                ctx.sync(); // the slot and the object are usable after this sync
                coll.allreduce(element, slot, 8, (n, a, ao, v, vo) -> {
                    for (long i = 0; i < n; i++) v.set(ValueLayout.JAVA_LONG, vo, v.get(ValueLayout.JAVA_LONG, vo) + a.get(ValueLayout.JAVA_LONG, ao + 8 * i));
                });
                ctx.sync();
                reduced = element.get(ValueLayout.JAVA_LONG, 0);
            }
            long received;
            try (Bsmp bsmp = Bsmp.create(ctx, 8, 8, 1)) {
                bsmp.sendLongTag((ctx.pid() + 1) % np, ctx.pid(), new byte[]{(byte) ctx.pid(), 1, 2, 3, 4, 5, 6, 7});
                bsmp.sync();
                BsmpMessage m = bsmp.move();
                received = m.tagLong();
            }
            return List.of(new long[]{reduced, received}).iterator();
        }).collect();
        for (int i = 0; i < p; i++) {
            assertEquals(40 * 41 / 2, out.get(i)[0], "allreduce at pid " + i);
            assertEquals((i + p - 1) % p, out.get(i)[1], "pid " + i + " got the message of its left neighbour");
        }
    }

    @Test
    void aThrowingProcessFailsTheStageNamingThePartitionAndTheCauseAndSparkRetriesIt() throws Exception {
        try (StageLog log = StageLog.listen()) {
            Exception e = assertThrows(Exception.class, () -> BspStage.of(numbers(30, 3)).mapPartitions((Context ctx, Iterator<Long> it) -> {
                ctx.sync();
                if (ctx.pid() == 1) throw new IllegalStateException("boom at pid 1");
                ctx.sync();
                return List.<Long>of().iterator();
            }).collect());
            String message = text(e);
            assertTrue(message.contains("partition 1 of 3") || message.contains("partition 0 of 3") || message.contains("partition 2 of 3"),
                    "names a partition: " + message);
            assertTrue(message.contains("boom at pid 1"), "carries the cause: " + message);
            assertFalse(message.contains(BspStageException.PROGRAMMING_ERROR), "the program's own exception may pass: " + message);
            assertEquals(List.of(0, 1), log.bspAttempts(1), "spark.stage.maxConsecutiveAttempts = 2 attempts");
        }
    }

    @Test
    void aProgrammingErrorFailsTheJobAfterOneAttempt() throws Exception {
        try (StageLog log = StageLog.listen()) {
            Exception e = assertThrows(Exception.class, () -> BspStage.of(numbers(30, 3)).mapPartitions((Context ctx, Iterator<Long> it) -> {
                ctx.sync();
                if (ctx.pid() == 1) ctx.registerGlobal(Arena.ofAuto().allocate(8, 8)); // no slot reserved: the register is full
                ctx.sync();
                return List.<Long>of().iterator();
            }).collect());
            String message = text(e);
            assertTrue(message.contains("memory register full"), "carries the check's message: " + message);
            assertTrue(message.contains("not retried"), "says it is not retried: " + message);
            assertEquals(List.of(0), log.bspAttempts(1), "one attempt of the stage");
        }
    }

    /**
     * A bad parameter value is a programming error naming the parameter and the value (one
     * attempt), and it leaves nothing held in the executor: the stage with the value fixed runs.
     */
    @Test
    void aBadParameterValueFailsTheJobAfterOneAttemptAndTheFixedStageRuns() throws Exception {
        try (StageLog log = StageLog.listen()) {
            Exception e = assertThrows(Exception.class, () -> BspStage.of(numbers(30, 3)).parameter("lpf.debug", "true")
                    .parameter("lpf.engine.net.syncTimeout", "not-a-number")
                    .mapPartitions((Context ctx, Iterator<Long> it) -> List.of(ctx.pid()).iterator()).collect());
            String message = text(e);
            assertTrue(message.contains("BspStage.parameter(lpf.engine.net.syncTimeout, not-a-number)"), "names both: " + message);
            assertTrue(message.contains("not retried"), "a programming error: " + message);
            assertEquals(List.of(0), log.bspAttempts(1), "one attempt of the stage");
        }
        assertEquals(List.of(0, 1, 2), BspStage.of(numbers(30, 3)).parameter("lpf.engine.net.syncTimeout", "30000")
                .mapPartitions((Context ctx, Iterator<Long> it) -> {
                    ctx.sync();
                    return List.of(ctx.pid()).iterator();
                }).collect());
    }

    /**
     * {@code lpf.debug=true} as a stage parameter checks the stage as {@code lpf run --debug}
     * checks a job, whether the executor's tasks are one node or net processes: a slot left
     * registered when the function returns (which no engine reports) fails the stage as a
     * programming error naming the line that registered it.
     */
    @ParameterizedTest(name = "executorNodes = {0}")
    @ValueSource(booleans = {true, false})
    void aStageWithLpfDebugIsChecked(boolean nodes) {
        Exception e = assertThrows(Exception.class, () -> BspStage.of(numbers(30, 3)).executorNodes(nodes).parameter("lpf.debug", "true")
                .mapPartitions((Context ctx, Iterator<Long> it) -> {
                    reserve(ctx, 1, 0);
                    ctx.registerGlobal(Arena.ofAuto().allocate(8, 8)); // never deregistered
                    ctx.sync();
                    return List.<Long>of().iterator();
                }).collect());
        String message = text(e);
        assertTrue(message.contains("lpf debug [slots-left-registered]"), "the debug layer's check: " + message);
        assertTrue(message.contains("BspStageLocalTest.java:"), "names the line: " + message);
        assertTrue(message.contains("not retried"), "a programming error: " + message);
    }

    @Test
    void theStageIsNamedAfterTheLineThatMadeItUnlessTheCallerNamedIt() throws Exception {
        try (StageLog log = StageLog.listen()) {
            int line = new Throwable().getStackTrace()[0].getLineNumber() + 1;
            JavaRDD<Integer> pids = BspStage.of(numbers(10, 2)).mapPartitions((Context ctx, Iterator<Long> it) -> List.of(ctx.pid()).iterator());
            assertEquals(List.of(0, 1), pids.collect());
            List<String> stages = log.afterJobs(1);
            assertTrue(stages.contains("BspStage.mapPartitions at BspStageLocalTest.java:" + line + " attempt 0"), stages.toString());
            assertEquals(null, spark.getLocalProperty(CallSites.SHORT), "the call site is the caller's again after mapPartitions");
            spark.setCallSite("the caller's own name");
            try {
                BspStage.of(numbers(10, 2)).mapPartitions((Context ctx, Iterator<Long> it) -> List.of(ctx.pid()).iterator()).collect();
            } finally {
                spark.clearCallSite();
            }
            assertTrue(log.afterJobs(2).contains("the caller's own name attempt 0"), "a call site the caller set wins: " + log.afterJobs(2));
        }
    }

    /** The stages submitted and the jobs ended, as Spark's listener bus tells them. */
    static final class StageLog extends SparkListener implements AutoCloseable {
        private final List<String> stages = java.util.Collections.synchronizedList(new ArrayList<>());
        private final AtomicInteger jobsEnded = new AtomicInteger();

        static StageLog listen() {
            StageLog log = new StageLog();
            spark.sc().addSparkListener(log);
            return log;
        }

        @Override
        public void onStageSubmitted(SparkListenerStageSubmitted e) {
            stages.add(e.stageInfo().name() + " attempt " + e.stageInfo().attemptNumber());
        }

        @Override
        public void onJobEnd(SparkListenerJobEnd e) { jobsEnded.incrementAndGet(); }

        /** @return the stages submitted once {@code jobs} jobs have ended (waits up to 30 s) */
        List<String> afterJobs(int jobs) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (jobsEnded.get() < jobs && System.nanoTime() < deadline) Thread.sleep(20);
            assertTrue(jobsEnded.get() >= jobs, "jobs ended: " + jobsEnded.get() + " of " + jobs);
            synchronized (stages) {
                return List.copyOf(stages);
            }
        }

        /** @return the attempt numbers of this test class's BspStage stages, once {@code jobs} jobs have ended */
        List<Integer> bspAttempts(int jobs) throws InterruptedException {
            List<Integer> attempts = new ArrayList<>();
            for (String s : afterJobs(jobs)) {
                if (s.startsWith("BspStage.mapPartitions at BspStageLocalTest.java:")) {
                    attempts.add(Integer.parseInt(s.substring(s.lastIndexOf(' ') + 1)));
                }
            }
            return attempts;
        }

        @Override
        public void close() { spark.sc().removeSparkListener(this); }
    }

    /** The messages of an exception and its causes. */
    static String text(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) b.append(c).append(" | ");
        return b.toString();
    }

    @Test
    void aRetriedStageResumesFromTheLastCompleteCheckpoint(@TempDir Path dir) throws Exception {
        int p = 3, steps = 60;
        JavaRDD<long[]> stage = BspStage.of(numbers(p, p)).checkpoints(dir.toString(), "0")
                .mapPartitions((Context ctx, Iterator<Long> it) -> retriedLoop(ctx, steps, 40));
        List<long[]> out = stage.collect();
        for (int i = 0; i < p; i++) {
            assertEquals(1, out.get(i)[0], "the stage ran twice (attempt " + out.get(i)[0] + ")");
            assertEquals(21, out.get(i)[1], "the retry resumed after the checkpoint of iteration 20 at pid " + i);
            assertEquals(expectedValue(i, steps), out.get(i)[2], "the value at pid " + i + " is the fault-free one");
        }
        assertEquals(List.of(), files(dir), "the stage ended well: no checkpoint left");
    }

    @ParameterizedTest(name = "keepCheckpoints({0})")
    @ValueSource(booleans = {false, true})
    void aStageThatEndedWellRemovesItsCheckpointsUnlessToldToKeepThem(boolean keep, @TempDir Path dir) throws Exception {
        int p = 3, steps = 30;
        List<long[]> out = BspStage.of(numbers(p, p)).checkpoints(dir.toString(), "0").keepCheckpoints(keep)
                .mapPartitions((Context ctx, Iterator<Long> it) -> retriedLoop(ctx, steps, -1)).collect();
        for (int i = 0; i < p; i++) assertEquals(expectedValue(i, steps), out.get(i)[2], "the value at pid " + i);
        if (keep) {
            assertFalse(new CheckpointDirectory(dir).committed().isEmpty(), "the checkpoint of iteration 20 stays: " + files(dir));
            assertTrue(files(dir).stream().anyMatch(f -> f.startsWith("reached-")), "the run's progress file stays: " + files(dir));
        } else {
            assertEquals(List.of(), files(dir), "no checkpoint and no reached- file left");
        }
    }

    /** @return the names in a directory, sorted */
    static List<String> files(Path dir) throws java.io.IOException {
        try (Stream<Path> all = Files.list(dir)) {
            return all.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    /** pid + sum of t over t < steps, accumulated through a protected segment. */
    static long expectedValue(int pid, int steps) { return pid + LongStream.range(0, steps).sum(); }

    static Iterator<long[]> retriedLoop(Context ctx, int steps, int failAt) throws Exception {
        int attempt = BarrierTaskContext.get().stageAttemptNumber();
        reserve(ctx, Checkpoints.REGISTER_SLOTS, Checkpoints.queueEntries(ctx.nprocs()));
        MemorySegment value = Arena.ofAuto().allocate(8, 8);
        value.set(ValueLayout.JAVA_LONG, 0, ctx.pid());
        long start;
        try (Checkpoints cr = Checkpoints.init(ctx, "retried loop " + steps)) {
            cr.protect("value", value);
            cr.resume();
            start = cr.iteration();
            for (long t = start; t < steps; ) {
                value.set(ValueLayout.JAVA_LONG, 0, value.get(ValueLayout.JAVA_LONG, 0) + t);
                Thread.sleep(2);
                if (attempt == 0 && t == failAt && ctx.pid() == ctx.nprocs() - 1) throw new IllegalStateException("lost at " + t);
                if (t == 20) {
                    // Committed here, not at some later point once every write finished: a loaded
                    // machine's writes may outlast the 20 iterations before the fault.
                    t = cr.checkpointNow();
                    cr.flush();
                } else {
                    t = cr.checkpoint();
                }
            }
        }
        return List.of(new long[]{attempt, start, value.get(ValueLayout.JAVA_LONG, 0)}).iterator();
    }

    @Test
    void aCancelledJobEndsItsEndlessSectionAndLeavesNothingBehind() throws Exception {
        JavaRDD<Long> input = numbers(100, 3);
        long sockets = sockets();
        List<String> before = lpfThreads();
        spark.setJobGroup("endless", "an endless BSP loop", false);
        ENDLESS_SYNCS.set(0);
        var job = BspStage.of(input).mapPartitions((Context ctx, Iterator<Long> it) -> {
            while (true) {
                ctx.sync();
                ENDLESS_SYNCS.incrementAndGet();
            }
        }).collectAsync();
        // Until the stage has joined and loops: its 3 processes have made 10 syncs each (local mode: one JVM).
        long joined = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (ENDLESS_SYNCS.get() < 30 && System.nanoTime() < joined) Thread.sleep(10);
        assertTrue(ENDLESS_SYNCS.get() >= 30, "the stage made " + ENDLESS_SYNCS.get() + " syncs in 60 s");
        long t0 = System.nanoTime();
        spark.cancelJobGroup("endless");
        assertThrows(Exception.class, () -> job.get(60, TimeUnit.SECONDS));
        spark.clearJobGroup();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while ((sockets() - sockets >= 4 || !before.equals(lpfThreads())) && System.nanoTime() < deadline) Thread.sleep(100);
        assertEquals(before, lpfThreads(), "lpf4j threads after the cancelled stage");
        assertTrue(sockets() - sockets < 4, "sockets grew from " + sockets + " to " + sockets());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "ended within 20 s of the cancel");
    }

    @Test
    void aStageLeavesNoThreadAndNoSocketBehind() throws Exception {
        JavaRDD<Long> input = numbers(100, 4);
        Runnable stage = () -> BspStage.of(input).mapPartitions((Context ctx, Iterator<Long> it) -> {
            ctx.sync();
            return List.of(ctx.pid()).iterator();
        }).collect();
        stage.run(); // Spark's own threads and connections start here
        Thread.sleep(200);
        long sockets = sockets();
        List<String> before = lpfThreads();
        for (int i = 0; i < 3; i++) stage.run();
        assertThrows(Exception.class, () -> BspStage.of(input).mapPartitions((Context ctx, Iterator<Long> it) -> {
            ctx.sync();
            if (ctx.pid() == 1) throw new IllegalStateException("pid 1 fails the stage");
            ctx.sync();
            return List.of(ctx.pid()).iterator();
        }).collect());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while ((!before.equals(lpfThreads()) || sockets() - sockets >= 8) && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(before, lpfThreads(), "lpf4j threads after three more stages and a failed one");
        // A leak would leave 6 x (6 connections x 2 ends + 4 listeners) = 96 sockets (the failed stage ran twice).
        assertTrue(sockets() - sockets < 8, "sockets grew from " + sockets + " to " + sockets());
    }

    private static long sockets() throws Exception {
        long n = 0;
        File[] fds = new File("/proc/self/fd").listFiles();
        if (fds == null) return 0;
        for (File f : fds) {
            try {
                if (Files.readSymbolicLink(f.toPath()).toString().startsWith("socket:")) n++;
            } catch (Exception e) {
                // closed while listing
            }
        }
        return n;
    }

    private static List<String> lpfThreads() {
        List<String> names = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().toLowerCase().contains("lpf")) names.add(t.getName());
        }
        names.sort(null);
        return names;
    }

    /**
     * A graph of many components: 100 random arcs among 300 vertices (a third as many arcs as vertices, so
     * small trees and isolated pairs), a path of 12 vertices (the longest propagation; GraphX runs a Spark job per hop),
     * and a self-loop.
     */
    private static List<Arc> graph() {
        Random random = new Random(40);
        List<Arc> arcs = new ArrayList<>();
        for (int i = 0; i < 100; i++) arcs.add(new Arc(1000 + random.nextInt(300), 1000 + random.nextInt(300)));
        for (long v = 5000; v < 5011; v++) arcs.add(new Arc(v + 1, v)); // labels travel 11 hops
        arcs.add(new Arc(7, 7));
        return arcs;
    }

    /** @return vertex → smallest vertex of its component, by union-find over the arcs taken as undirected */
    private static Map<Long, Long> sequential(List<Arc> arcs) {
        Map<Long, Long> parent = new HashMap<>();
        for (Arc a : arcs) {
            parent.putIfAbsent(a.source(), a.source());
            parent.putIfAbsent(a.target(), a.target());
            long x = root(parent, a.source()), y = root(parent, a.target());
            if (x != y) parent.put(Math.max(x, y), Math.min(x, y)); // the smaller id stays the root
        }
        Map<Long, Long> component = new HashMap<>();
        for (long v : parent.keySet()) component.put(v, root(parent, v));
        return component;
    }

    private static long root(Map<Long, Long> parent, long v) {
        while (parent.get(v) != v) v = parent.get(v);
        return v;
    }

    private static Map<Long, Long> bsp(JavaRDD<Arc> arcs) {
        Map<Long, Long> component = new HashMap<>();
        for (VertexComponent c : BspStage.of(arcs).mapPartitions(new BspConnectedComponents()).collect()) {
            Long before = component.put(c.vertex(), c.component());
            assertEquals(null, before, "vertex " + c.vertex() + " returned once, by its owner");
        }
        return component;
    }

    /**
     * The Spark user's connected components of issue 40: a {@link BspStage} program on the
     * collectives' alltoallv and checkpoints, capacities reserved by one {@code Capacity} call
     * ({@link BspConnectedComponents#needs}), checked against a sequential union-find and against
     * GraphX's {@code ConnectedComponents}.
     */
    @Test
    void connectedComponentsAgreeWithUnionFindAndGraphX() {
        List<Arc> arcs = graph();
        Map<Long, Long> expected = sequential(arcs);
        assertTrue(expected.values().stream().distinct().count() > 10, "many components: " + expected.values().stream().distinct().count());

        for (int p : new int[]{1, 4}) {
            assertEquals(expected, bsp(spark.parallelize(arcs, p)), "p = " + p + ": the sequential components");
        }

        ClassTag<Object> any = scala.reflect.ClassTag$.MODULE$.apply(Object.class);
        JavaRDD<Arc> input = spark.parallelize(arcs, 3);
        Graph<Object, Object> graph = Graph.fromEdges(input.map(a -> new Edge<Object>(a.source(), a.target(), 1)).rdd(), 1,
                StorageLevel.MEMORY_ONLY(), StorageLevel.MEMORY_ONLY(), any, any);
        Map<Long, Long> graphx = new HashMap<>();
        for (Tuple2<Object, Object> v : ConnectedComponents.run(graph, any, any).vertices().toJavaRDD().collect()) {
            graphx.put((Long) v._1(), (Long) v._2());
        }
        assertEquals(graphx, bsp(input), "p = 3: GraphX's components");
    }

    /**
     * Spark's {@code allGather} waits in one-second sleeps for the driver's answer;
     * {@link BarrierWake} (every fence of a stage's boot) wakes it as soon as its answer can be
     * there, and leaves no interrupt behind.
     */
    @Test
    void anAllGatherTakesARoundTripNotSparksSecond() {
        List<Long> nanos = numbers(2, 2).rdd().barrier().mapPartitions(new TimedAllGathers(), false,
                scala.reflect.ClassTag$.MODULE$.apply(Long.class)).toJavaRDD().collect();
        System.out.println("allGather ns, per task: plain, woken, woken, woken, interrupted left: " + nanos);
        assertEquals(2 * 5, nanos.size(), "five figures per task: " + nanos);
        // The task whose request completes the barrier may find the answer at once; the other sleeps.
        assertTrue(Math.max(nanos.get(0), nanos.get(5)) >= 900_000_000L,
                "Spark's own allGather still sleeps a second (else BarrierWake has no use): " + nanos);
        for (int task = 0; task < 2; task++) {
            // The first woken call may wait for the other task's plain one to wake up: the next two may not.
            for (int i = 2; i <= 3; i++) {
                long woken = nanos.get(5 * task + i);
                assertTrue(woken < 400_000_000L, "a woken allGather took " + woken / 1_000_000 + " ms: " + nanos);
            }
            assertEquals(0, nanos.get(5 * task + 4), "no interrupt left after the calls: " + nanos);
        }
    }

    /**
     * In a barrier task, after one woken {@code allGather} that lines the tasks up: the ns of one
     * plain {@code allGather}, of three through {@link BarrierWake}, then 1 if the thread was left interrupted.
     */
    static final class TimedAllGathers extends scala.runtime.AbstractFunction1<scala.collection.Iterator<Long>, scala.collection.Iterator<Long>>
            implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public scala.collection.Iterator<Long> apply(scala.collection.Iterator<Long> partition) {
            BarrierTaskContext task = BarrierTaskContext.get();
            BarrierWake.call(task, () -> task.allGather("line up"));
            List<Long> out = new ArrayList<>();
            long t = System.nanoTime();
            task.allGather("plain");
            out.add(System.nanoTime() - t);
            for (int i = 0; i < 3; i++) {
                t = System.nanoTime();
                String[] all = BarrierWake.call(task, () -> task.allGather("woken"));
                out.add(all.length == 2 ? System.nanoTime() - t : Long.MAX_VALUE);
            }
            out.add(Thread.currentThread().isInterrupted() ? 1L : 0L);
            return scala.jdk.javaapi.CollectionConverters.asScala(out.iterator());
        }
    }
}
