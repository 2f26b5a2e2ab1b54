package org.lpf4j.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.ClassNameFilter;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.MethodFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The conformance suite inside Spark: every {@code exec(p)} of its tests is a barrier stage of p
 * tasks ({@link StageEngine}) on {@code local-cluster[2,2,1024]}, two executor JVMs of two task
 * slots each, so p = 1 … 4: the tasks of one executor run as one node of threads, the executors
 * meet over the net engine, and every class comes from the executors' own class loader.
 *
 * <p>By default a short list of classes runs (the DRMA rules, combining puts, registration, the
 * spec's example); {@code -Dlpf.test.spark.conformance=all} runs the whole package. Left out, and
 * the run says so: the tests that assert which exception a failed section hands {@code exec}
 * (FailureTest, CulpritMessagesTest), because a failed stage reaches the driver as Spark's
 * message while the processes' exceptions stay in the executors (BspStageLocalTest checks what
 * the driver gets); and two methods of SectionTest ({@link #METHODS_LEFT_OUT}).
 */
@Timeout(value = 1800, unit = TimeUnit.SECONDS)
class StageConformanceTest {
    static final List<String> SHORT = List.of("org.lpf4j.conformance.DrmaTest", "org.lpf4j.conformance.CombiningPutsTest",
            "org.lpf4j.conformance.RegistrationTest", "org.lpf4j.conformance.SpecExampleTest");
    static final List<String> LEFT_OUT = List.of("org.lpf4j.conformance.FailureTest", "org.lpf4j.conformance.CulpritMessagesTest");
    /**
     * Methods that assume what a stage is not: pid 0 in the caller's JVM (a test that reads what
     * pid 0 set in a captured object), and a section of fewer tasks than the cluster's slots that
     * shares out all the slots (a stage holds only its own tasks' slots).
     */
    static final List<String> METHODS_LEFT_OUT = List.of(".*SectionTest#execMaxPGetsFreePAndAnExplicitPAtMostP.*",
            ".*SectionTest#nestedExecSplitsTheCallersFreeProcessors.*");

    @Test
    void theConformanceSuitePassesInsideBarrierStagesOfTwoExecutorsOfTwoTasks() throws Exception {
        Path work = Files.createTempDirectory("lpf4j-spark-conformance");
        SparkConf conf = new SparkConf().setMaster("local-cluster[2,2,1024]").setAppName("StageConformanceTest")
                .set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.ui.enabled", "false").set("spark.executor.memory", "768m")
                .set("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "1s")
                .set("spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures", "60")
                .setJars(LocalClusterTest.executorJars(work.resolve("jars"), "org.lpf4j.conformance.DrmaTest",
                        "org.junit.jupiter.api.Assertions", "org.junit.jupiter.params.provider.Arguments", "org.opentest4j.AssertionFailedError"));
        JavaSparkContext spark = new JavaSparkContext(conf);
        String app = spark.sc().applicationId();
        String engines = System.getProperty("lpf.conformance.engines"), maxP = System.getProperty("lpf.conformance.maxP");
        try {
            spark.setLogLevel("ERROR");
            long up = System.nanoTime() + TimeUnit.SECONDS.toNanos(120); // the workers start their executors after the context
            while ((LocalClusterTest.executors(app).size() < 2 || spark.sc().statusTracker().getExecutorInfos().length < 3)
                    && System.nanoTime() < up) Thread.sleep(100);
            assertEquals(2, LocalClusterTest.executors(app).size(), "two executor JVMs");
            assertEquals(3, spark.sc().statusTracker().getExecutorInfos().length, "the driver and two executors registered");
            StageEngine.use(spark, 4);
            System.setProperty("lpf.conformance.engines", "sparkstage");
            System.setProperty("lpf.conformance.maxP", "4");
            TestExecutionSummary s = runSuite("all".equals(System.getProperty("lpf.test.spark.conformance")));
            assertTrue(s.getTestsFoundCount() > 0, "no test found");
            assertEquals(0, s.getTestsFailedCount() + s.getTestsAbortedCount(), s.getTestsFoundCount() + " tests, "
                    + s.getTestsFailedCount() + " failed, " + s.getTestsAbortedCount() + " aborted (the FAILED lines above)");
        } finally {
            StageEngine.use(null, 1);
            restore("lpf.conformance.engines", engines);
            restore("lpf.conformance.maxP", maxP);
            spark.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!LocalClusterTest.executors(app).isEmpty() && System.nanoTime() < deadline) Thread.sleep(100);
            List<ProcessHandle> left = LocalClusterTest.executors(app);
            left.forEach(ProcessHandle::destroyForcibly);
            LocalClusterTest.deleteAll(work);
            assertTrue(left.isEmpty(), "executor JVMs left after the context stopped: " + left);
        }
    }

    /** Runs the conformance classes with the JUnit Platform, printing each test's outcome. */
    private static TestExecutionSummary runSuite(boolean all) throws ClassNotFoundException {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        if (all) {
            request.selectors(DiscoverySelectors.selectPackage("org.lpf4j.conformance"));
        } else {
            List<org.junit.platform.engine.DiscoverySelector> classes = new ArrayList<>();
            for (String c : SHORT) classes.add(DiscoverySelectors.selectClass(Class.forName(c)));
            request.selectors(classes);
        }
        System.out.println("EXCLUDED " + LEFT_OUT + " (the exception a failed section hands exec stays in the executors)");
        request.filters(ClassNameFilter.excludeClassNamePatterns(
                LEFT_OUT.stream().map(Pattern::quote).toArray(String[]::new)));
        System.out.println("EXCLUDED " + METHODS_LEFT_OUT + " (pid 0 runs in an executor; a stage holds only its own tasks' slots)");
        request.filters(MethodFilter.excludeMethodNamePatterns(METHODS_LEFT_OUT.toArray(String[]::new)));
        // Like ConformanceMain: the suite's test of lpf.capacity=grow needs it set in every JVM.
        request.filters(ClassNameFilter.excludeClassNamePatterns(Pattern.quote("org.lpf4j.conformance.GrowingCapacityTest")));
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        launcher.execute(request.build(), summary, new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
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

    private static void restore(String key, String value) {
        if (value == null) System.clearProperty(key);
        else System.setProperty(key, value);
    }
}
