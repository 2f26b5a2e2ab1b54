package org.lpf4j.spark;

import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.ClassNameFilter;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.MethodFilter;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.conformance.ExpectsEngineRefusal;
import org.lpf4j.testkit.ConformanceMain;

import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The suites inside Spark: every {@code exec(p)} of their tests is a barrier stage of p tasks
 * ({@link StageEngine}) on {@code local-cluster[2,2,1024]}, two executor JVMs of two task slots
 * each, so p = 1 … 4: the tasks of one executor run as one node of threads, the executors meet
 * over the net engine, and every class comes from the executors' own class loader. The conformance
 * suite names its engine ({@code lpf.conformance.engines}); the library suites (collectives, BSMP,
 * BSPlib) take the default engine, so {@code lpf.engine=sparkstage} is set while they run, and
 * {@code lpf.test.procs} limits their process counts to the cluster's 4 slots; so for the
 * checkpoint module's suite, whose programs' parameters reach the tasks through the stage
 * ({@link StageEngine}), without {@link #CHECKPOINT_LEFT_OUT}. The debug suite is
 * the conformance suite (its DRMA and spec-example classes by default) and the debug
 * layer's own package, with {@code lpf.debug=true}, without the tests that expect the engine's own
 * refusal (the layer reports those errors first), as everywhere under the debug layer.
 *
 * <p>By default short lists of classes run (for the conformance suite: the DRMA rules, combining
 * puts, registration, the spec's example; one or two classes of each library; the checkpoint suite whole);
 * {@code -Dlpf.test.spark.conformance=all} runs the whole packages. Left out, and the run says
 * so: the tests that assert which exception a failed section hands {@code exec} (FailureTest,
 * CulpritMessagesTest, BSPlib's FailureTest, the debug layer's DebugAcrossProcessesTest), because a failed stage reaches the driver as Spark's
 * message while the processes' exceptions stay in the executors (BspStageLocalTest checks what the
 * driver gets); and the methods of {@link #METHODS_LEFT_OUT}.
 */
@Timeout(value = 1800, unit = TimeUnit.SECONDS)
class StageConformanceTest {
    private static final boolean ALL = "all".equals(System.getProperty("lpf.test.spark.conformance"));
    static final List<String> SHORT = List.of("org.lpf4j.conformance.DrmaTest", "org.lpf4j.conformance.CombiningPutsTest",
            "org.lpf4j.conformance.RegistrationTest", "org.lpf4j.conformance.SpecExampleTest");
    static final List<String> LIBRARIES_SHORT = List.of("org.lpf4j.coll.AlgorithmParameterTest", "org.lpf4j.coll.QueueBoundsTest",
            "org.lpf4j.bsmp.BsmpRandomTrafficTest", "org.lpf4j.bsplib.BasicsTest");
    static final List<String> LIBRARIES = List.of("org.lpf4j.coll", "org.lpf4j.bsmp", "org.lpf4j.bsplib");
    static final List<String> DEBUG_SHORT = List.of("org.lpf4j.conformance.DrmaTest", "org.lpf4j.conformance.SpecExampleTest");
    static final List<String> DEBUG = List.of("org.lpf4j.conformance", "org.lpf4j.debug");
    static final List<String> LEFT_OUT = List.of("org.lpf4j.conformance.FailureTest", "org.lpf4j.conformance.CulpritMessagesTest",
            "org.lpf4j.bsplib.FailureTest", "org.lpf4j.debug.DebugAcrossProcessesTest");
    /**
     * Methods that assume what a stage is not: pid 0 in the caller's JVM (a test that reads what
     * pid 0 set in a captured object), and a section of fewer tasks than the cluster's slots that
     * shares out all the slots (a stage holds only its own tasks' slots).
     */
    static final List<String> METHODS_LEFT_OUT = List.of(".*SectionTest#execMaxPGetsFreePAndAnExplicitPAtMostP.*",
            ".*SectionTest#nestedExecSplitsTheCallersFreeProcessors.*");

    /**
     * The checkpoint suite's tests that read what only the caller's JVM holds when pid 0 runs
     * there (beside those tagged {@link ConformanceMain#CALLERS_JVM}): the resumptions that
     * {@code Restarts} reports (recorded by pid 0; BspStageLocalTest checks a stage's own report);
     * the memory module's rollback, whose retry needs each task in the executor of its first
     * attempt.
     */
    static final List<String> CHECKPOINT_LEFT_OUT = List.of(".*CheckpointsTest#aRetryResumesAtTheNextIterationAndCountsTheIterationsItRedoes.*",
            ".*CheckpointsTest#aRetryWithoutACheckpointSaysItStartsFromTheBeginningAndRedoesEverything.*",
            ".*CheckpointsTest#memoryModuleRollsBackInThisJvm.*");

    private static JavaSparkContext spark;
    private static Path work;

    @BeforeAll
    static void startTheCluster() throws Exception {
        work = Files.createTempDirectory("lpf4j-spark-conformance");
        spark = new JavaSparkContext(LocalClusterTest.conf("local-cluster[2,2,1024]", "StageConformanceTest",
                LocalClusterTest.executorJars(work.resolve("jars"), "org.lpf4j.conformance.DrmaTest",
                        "org.lpf4j.coll.Harness", "org.lpf4j.bsmp.BsmpRandomTrafficTest", "org.lpf4j.bsplib.DrmaTest",
                        "org.lpf4j.bsplib.Bsplib", "org.lpf4j.cr.RingJob", "org.junit.jupiter.api.Assertions",
                        "org.junit.jupiter.params.provider.Arguments", "org.opentest4j.AssertionFailedError",
                        // An assertion that fails in an executor formats its message with JUnit's commons.
                        "org.junit.platform.commons.util.StringUtils")));
        String app = spark.sc().applicationId();
        spark.setLogLevel("ERROR");
        long up = System.nanoTime() + TimeUnit.SECONDS.toNanos(120); // the workers start their executors after the context
        while ((LocalClusterTest.executors(app).size() < 2 || spark.sc().statusTracker().getExecutorInfos().length < 3)
                && System.nanoTime() < up) Thread.sleep(100);
        assertEquals(2, LocalClusterTest.executors(app).size(), "two executor JVMs");
        assertEquals(3, spark.sc().statusTracker().getExecutorInfos().length, "the driver and two executors registered");
        StageEngine.use(spark, 4);
    }

    @AfterAll
    static void stopTheCluster() throws Exception {
        StageEngine.use(null, 1);
        LocalClusterTest.stop(spark, work);
    }

    @Test
    void theConformanceSuitePassesInsideBarrierStagesOfTwoExecutorsOfTwoTasks() throws Exception {
        assertPassed(withProperties(Map.of("lpf.conformance.engines", "sparkstage", "lpf.conformance.maxP", "4"),
                () -> runSuite(ALL ? List.of() : SHORT, ALL ? List.of("org.lpf4j.conformance") : List.of(), false)));
    }

    @Test
    void theLibrarySuitesPassInsideBarrierStagesWithTheStageAsTheDefaultEngine() throws Exception {
        assertPassed(withProperties(Map.of("lpf.engine", "sparkstage", "lpf.test.procs", "1,2,3,4"),
                () -> runSuite(ALL ? List.of() : LIBRARIES_SHORT, ALL ? LIBRARIES : List.of(), false)));
    }

    /**
     * The checkpoint module's suite, unchanged: the tests' {@code Parameters.set} in the driver
     * reaches the stages' tasks ({@link StageEngine}), and their jobs keep what the tests check in
     * files of a directory the executors share (one host) or in process 0's output.
     */
    @Test
    void theCheckpointSuitePassesInsideBarrierStages() throws Exception {
        System.out.println("EXCLUDED " + CHECKPOINT_LEFT_OUT + " (Restarts' report of a resumption is"
                + " the driver's, process 0 runs in an executor; the memory module keeps checkpoints in the process's JVM,"
                + " and a stage's retry may run a task in another executor)");
        assertPassed(withProperties(Map.of("lpf.engine", "sparkstage", "lpf.test.procs", "1,2,3,4"),
                () -> runSuite(List.of(), List.of("org.lpf4j.cr"), false,
                        MethodFilter.excludeMethodNamePatterns(CHECKPOINT_LEFT_OUT.toArray(String[]::new)))));
    }

    @Test
    void theDebugSuitePassesInsideBarrierStages() throws Exception {
        assertPassed(withProperties(Map.of("lpf.debug", "true", "lpf.engine", "sparkstage", "lpf.conformance.engines", "sparkstage",
                "lpf.conformance.maxP", "4", "lpf.test.procs", "1,2,3,4"),
                () -> {
                    // The layer checks inside the executors: a put from a slot before its registration's sync is reported.
                    FatalException e = assertThrows(FatalException.class, () -> Lpf.root().exec(2, new PutBeforeTheSync()));
                    assertTrue(e.getMessage().contains("lpf debug [inactive-slot] put("), e.getMessage());
                    return runSuite(ALL ? List.of() : DEBUG_SHORT, ALL ? DEBUG : List.of(), true);
                }));
    }

    /**
     * A put from a slot in the superstep of its global registration: an error the debug layer
     * reports. Its own class: the executors have no JUnit launcher, which this test class needs.
     */
    private static final class PutBeforeTheSync implements Spmd {
        private static final long serialVersionUID = 1L;

        @Override
        public void run(Context ctx) {
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            Memslot slot = ctx.registerGlobal(Arena.ofAuto().allocate(8));
            ctx.put(slot, 0, 1 - ctx.pid(), slot, 0, 8);
            ctx.sync();
        }
    }

    private static void assertPassed(TestExecutionSummary s) {
        assertTrue(s.getTestsFoundCount() > 0, "no test found");
        assertEquals(0, s.getTestsFailedCount() + s.getTestsAbortedCount(), s.getTestsFoundCount() + " tests, "
                + s.getTestsFailedCount() + " failed, " + s.getTestsAbortedCount() + " aborted (the FAILED lines above)");
    }

    /** Runs {@code body} with the system properties {@code set}, then restores what they were. */
    private static <T> T withProperties(Map<String, String> set, java.util.concurrent.Callable<T> body) throws Exception {
        Map<String, String> before = new java.util.HashMap<>();
        for (String k : set.keySet()) before.put(k, System.getProperty(k));
        set.forEach(System::setProperty);
        try {
            return body.call();
        } finally {
            before.forEach((k, v) -> {
                if (v == null) System.clearProperty(k);
                else System.setProperty(k, v);
            });
        }
    }

    /**
     * Runs {@code classes} and {@code packages} with the JUnit Platform, printing each test's
     * outcome; with {@code debug}, as ConformanceMain does, without the tests that expect the
     * engine's own refusal of an error the debug layer reports first.
     */
    private static TestExecutionSummary runSuite(List<String> classes, List<String> packages, boolean debug,
                                                 org.junit.platform.engine.Filter<?>... filters) throws ClassNotFoundException {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        List<org.junit.platform.engine.DiscoverySelector> selectors = new ArrayList<>();
        for (String c : classes) selectors.add(DiscoverySelectors.selectClass(Class.forName(c)));
        for (String p : packages) selectors.add(DiscoverySelectors.selectPackage(p));
        request.selectors(selectors);
        request.filters(filters);
        System.out.println("EXCLUDED tag " + ConformanceMain.CALLERS_JVM + " (the stage's processes run in the executors)");
        request.filters(TagFilter.excludeTags(ConformanceMain.CALLERS_JVM));
        System.out.println("EXCLUDED " + LEFT_OUT + " (the exception a failed section hands exec stays in the executors)");
        request.filters(ClassNameFilter.excludeClassNamePatterns(
                LEFT_OUT.stream().map(Pattern::quote).toArray(String[]::new)));
        System.out.println("EXCLUDED " + METHODS_LEFT_OUT + " (pid 0 runs in an executor; a stage holds only its own tasks' slots)");
        request.filters(MethodFilter.excludeMethodNamePatterns(METHODS_LEFT_OUT.toArray(String[]::new)));
        if (debug) {
            System.out.println("EXCLUDED tag " + ExpectsEngineRefusal.TAG + " (lpf.debug is on)");
            request.filters(TagFilter.excludeTags(ExpectsEngineRefusal.TAG));
        }
        // Like ConformanceMain: the suite's test of lpf.capacity=grow needs it set in every JVM.
        request.filters(ClassNameFilter.excludeClassNamePatterns(Pattern.quote("org.lpf4j.conformance.GrowingCapacityTest")));
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        Map<String, Long> started = new java.util.concurrent.ConcurrentHashMap<>();
        launcher.execute(request.build(), summary, new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier id) {
                if (id.getSource().filter(ClassSource.class::isInstance).isPresent()) started.put(id.getUniqueId(), System.nanoTime());
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                Long t0 = started.remove(id.getUniqueId());
                if (t0 != null) System.out.printf("CLASS %s %.1f s%n", id.getDisplayName(), (System.nanoTime() - t0) / 1e9);
                if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    if (!id.isTest()) return;
                    System.out.println("PASSED " + id.getUniqueId());
                } else {
                    System.out.println("FAILED " + id.getUniqueId() + ": " + result.getThrowable().map(Throwable::toString).orElse(""));
                    result.getThrowable().ifPresent(Throwable::printStackTrace);
                }
            }
        });
        TestExecutionSummary s = summary.getSummary();
        System.out.println("CONFORMANCE in Spark tests=" + s.getTestsFoundCount() + " succeeded=" + s.getTestsSucceededCount()
                + " failed=" + (s.getTestsFailedCount() + s.getTestsAbortedCount()));
        return s;
    }
}
