package org.lpf4j.testkit;

import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.lpf4j.Lpf;
import org.lpf4j.conformance.ExpectsEngineRefusal;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

/**
 * Runs the conformance suite inside a job of JVMs of a multi-process engine (started by the engines'
 * ConformanceTests through {@link MpiJob} or {@link NetJob}): every rank starts the engine named by
 * {@code lpf.test.engine} (default {@code mpi}; {@code net}, {@code hybrid}); ranks ≥ 1 then serve
 * sections (and exit when rank 0 ends); rank 0 runs the suite with the JUnit Platform, limited to
 * that engine, so every {@code exec(p)} of a test runs on the first p ranks. Prints {@code FAILED <test>: <reason>} per failure and a final
 * {@code CONFORMANCE tests=N succeeded=S failed=F} line; exits 0 only if nothing failed.
 *
 * <p>Arguments: optional test class names or {@code package:<name>} (default: the whole package
 * {@code org.lpf4j.conformance}). With the debug layer on ({@code -Dlpf.debug=true}) the tests
 * tagged {@link ExpectsEngineRefusal} are left out (and the output says so); so are the tests
 * tagged {@link #CALLERS_JVM}, always, and
 * {@code GrowingCapacityTest} unless the job sets {@code lpf.capacity=grow} (on every JVM).
 */
public final class ConformanceMain {
    private ConformanceMain() {}

    /**
     * The JUnit tag of tests that read what only the caller's JVM holds when every process runs
     * there (a JFR recording of this JVM, say): a job across JVMs leaves them out.
     */
    public static final String CALLERS_JVM = "callers-jvm";

    /** The conformance test of {@code lpf.capacity=grow}, run only in a job that sets it on every JVM. */
    static final String GROWING_CAPACITY = "org.lpf4j.conformance.GrowingCapacityTest";

    /** @param args test classes or {@code package:<name>}, or none for the whole suite */
    public static void main(String[] args) throws Exception {
        String engine = System.getProperty("lpf.test.engine", "mpi");
        Lpf.root(engine); // ranks >= 1 stay in here, serving rank 0's sections
        System.setProperty("lpf.conformance.engines", engine);
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        if (args.length == 0) {
            request.selectors(selectPackage("org.lpf4j.conformance"));
        } else {
            for (String c : args) {
                if (c.startsWith("package:")) request.selectors(selectPackage(c.substring("package:".length())));
                else request.selectors(selectClass(Class.forName(c)));
            }
        }
        String exclude = System.getProperty("lpf.test.exclude", "").strip();
        if (!exclude.isEmpty()) {
            // Known test-design limits (a test that captures an unserializable object, say): listed by
            // the caller, printed here, never silently dropped.
            System.out.println("EXCLUDED " + exclude);
            request.filters(org.junit.platform.launcher.MethodFilter.excludeMethodNamePatterns(exclude.split(",")));
        }
        System.out.println("EXCLUDED tag " + CALLERS_JVM + " (the job's processes run in several JVMs)");
        request.filters(TagFilter.excludeTags(CALLERS_JVM));
        if (Lpf.DEBUG.get()) {
            // The debug layer reports a deliberate programming error before the engine refuses it.
            System.out.println("EXCLUDED tag " + ExpectsEngineRefusal.TAG + " (lpf.debug is on)");
            request.filters(TagFilter.excludeTags(ExpectsEngineRefusal.TAG));
        }
        if (!"grow".equals(org.lpf4j.spi.CoreParameters.CAPACITY.get())) {
            // It sets lpf.capacity=grow in this JVM only; a job runs it with -Dlpf.capacity=grow on every JVM.
            System.out.println("EXCLUDED " + GROWING_CAPACITY + " (lpf.capacity=grow is not set for the job)");
            request.filters(org.junit.platform.engine.discovery.ClassNameFilter.excludeClassNamePatterns(
                    java.util.regex.Pattern.quote(GROWING_CAPACITY)));
        }
        LauncherDiscoveryRequest discovery = request.build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        TestExecutionListener progress = new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (!id.isTest()) return;
                if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    System.out.println("PASSED " + id.getLegacyReportingName() + " " + id.getUniqueId());
                } else {
                    StringWriter w = new StringWriter();
                    result.getThrowable().ifPresent(t -> t.printStackTrace(new PrintWriter(w)));
                    System.out.println("FAILED " + id.getUniqueId() + ": " + w);
                }
                System.out.flush();
            }
        };
        launcher.execute(discovery, summary, progress);
        TestExecutionSummary s = summary.getSummary();
        System.out.println("CONFORMANCE tests=" + s.getTestsFoundCount() + " succeeded=" + s.getTestsSucceededCount()
                + " failed=" + (s.getTestsFailedCount() + s.getTestsAbortedCount()));
        System.out.flush();
        System.exit(s.getTestsFailedCount() + s.getTestsAbortedCount() == 0 && s.getTestsFoundCount() > 0 ? 0 : 1);
    }
}
