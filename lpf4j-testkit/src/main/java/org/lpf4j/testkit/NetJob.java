package org.lpf4j.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A net job of real JVMs for tests: the net engine's {@code NetLaunch} (reached by name: the net
 * engine must be on the test class path) starts them (tcp boot on loopback), each
 * runs a main class on the test class path with {@code -Dlpf.engine.net.syncTimeout=120000} and
 * the options given. Bounded in time; the job's process tree is killed in {@code finally}, and no
 * JVM of it may be left afterwards (each carries a marker to find it by).
 */
public final class NetJob {
    private NetJob() {}

    private static final Pattern SUMMARY = Pattern.compile("CONFORMANCE tests=(\\d+) succeeded=(\\d+) failed=(\\d+)");
    /** The suites' driver: rank 0 runs JUnit on the suites named (default: the conformance suite). */
    public static final String CONFORMANCE_MAIN = ConformanceMain.class.getName();

    /**
     * Runs a job and asserts it ended with status 0 within 600 s.
     *
     * @param jvms      the JVMs
     * @param options   JVM options of every JVM (the engine, parameters)
     * @param mainClass what every JVM runs
     * @param args      its arguments
     * @return the job's output (both streams)
     */
    public static String run(int jvms, List<String> options, String mainClass, String... args) throws Exception {
        return runWithout(List.of(), jvms, options, mainClass, args);
    }

    /**
     * {@link #run} of {@code processes} processes, {@code perJvm} of them as threads of each JVM
     * ({@code lpf.engine.net.perJvm}; NetLaunch's {@code --per-jvm}), within {@code timeoutSeconds}.
     *
     * @return the job's output (both streams)
     */
    public static String run(int processes, int perJvm, int timeoutSeconds, List<String> options, String mainClass, String... args)
            throws Exception {
        Ended ended = launch(List.of(), processes, perJvm, timeoutSeconds, options, mainClass, args);
        assertEquals(0, ended.exitCode(), ended.output());
        return ended.output();
    }

    /** How a job ended: its launcher's exit status and the job's output (both streams). */
    public record Ended(int exitCode, String output) {}

    /**
     * {@link #run(int, int, int, List, String, String...)} of a job that may fail: asserts only
     * that it ended within {@code timeoutSeconds} and left no process behind.
     *
     * @return its exit status and output
     */
    public static Ended runToEnd(int processes, int perJvm, int timeoutSeconds, List<String> options, String mainClass, String... args)
            throws Exception {
        return launch(List.of(), processes, perJvm, timeoutSeconds, options, mainClass, args);
    }

    /**
     * {@link #run} with the test class path less the named modules' entries (their
     * {@code target/classes} or jar): a job that must run without an engine, say. Asserts that
     * each of them was on the class path, so that leaving it out is real.
     *
     * @param artifacts the modules to leave out, e.g. {@code lpf4j-engine-mpi}
     */
    public static String runWithout(List<String> artifacts, int jvms, List<String> options, String mainClass, String... args)
            throws Exception {
        Ended ended = launch(artifacts, jvms, 1, 600, options, mainClass, args);
        assertEquals(0, ended.exitCode(), ended.output());
        return ended.output();
    }

    private static Ended launch(List<String> artifacts, int processes, int perJvm, int timeoutSeconds, List<String> options,
            String mainClass, String... args) throws Exception {
        String marker = "lpf.test.marker=" + UUID.randomUUID();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String artifact : artifacts) {
            List<String> kept = new ArrayList<>();
            for (String entry : cp.split(java.io.File.pathSeparator)) {
                String e = entry.replace(java.io.File.separatorChar, '/');
                if (!e.contains("/" + artifact + "/") && !Path.of(entry).getFileName().toString().startsWith(artifact + "-")) kept.add(entry);
            }
            String without = String.join(java.io.File.pathSeparator, kept);
            assertTrue(without.length() < cp.length(), artifact + " is not on the test class path: " + cp);
            cp = without;
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // As MpiJob's ranks: the client compiler and the serial collector (short jobs on few cores
        // spend less on compiling and on GC threads); a test's own options come later and win.
        List<String> rank = new ArrayList<>(List.of(java, "-Xss1m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        rank.addAll(ScriptsJvmOptions.get());
        rank.addAll(List.of("-D" + marker, "-Dlpf.engine.net.syncTimeout=120000"));
        rank.addAll(options);
        rank.addAll(List.of("-cp", cp, mainClass));
        rank.addAll(List.of(args));
        List<String> command = new ArrayList<>(List.of(java, "-D" + marker, "-cp", cp, "org.lpf4j.engine.net.NetLaunch"));
        if (perJvm > 1) command.addAll(List.of("--per-jvm", Integer.toString(perJvm)));
        command.add(Integer.toString(processes));
        command.addAll(rank);
        Process launch = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<String> out = ProcessOutput.drain(launch.getInputStream());
        try {
            if (!launch.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                // Say what it did until then (which tests passed): the pipe closes once the tree is gone.
                launch.descendants().forEach(ProcessHandle::destroyForcibly);
                launch.destroyForcibly();
                String text = out.get(30, TimeUnit.SECONDS);
                org.junit.jupiter.api.Assertions.fail("the job did not end in " + timeoutSeconds + " s; its output until then:\n" + text);
            }
            return new Ended(launch.exitValue(), out.get(30, TimeUnit.SECONDS));
        } finally {
            launch.descendants().forEach(ProcessHandle::destroyForcibly);
            launch.destroyForcibly();
            launch.onExit().get(10, TimeUnit.SECONDS);
            Thread.sleep(500);
            List<String> left = ProcessHandle.allProcesses()
                    .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false))
                    .map(h -> h.pid() + " " + h.info().command().orElse("?")).toList();
            assertTrue(left.isEmpty(), "processes of the job left behind: " + left);
        }
    }

    /**
     * Asserts a suite run's summary line: no test failed, at least {@code atLeast} ran.
     *
     * @param out     the job's output
     * @param atLeast the fewest tests that must have run
     */
    public static void assertSuitePassed(String out, int atLeast) {
        Matcher m = SUMMARY.matcher(out);
        assertTrue(m.find(), "no summary line:\n" + out);
        int tests = Integer.parseInt(m.group(1)), failed = Integer.parseInt(m.group(3));
        assertEquals(0, failed, out.lines().filter(l -> l.startsWith("FAILED")).reduce("", (a, b) -> a + "\n" + b));
        assertTrue(tests >= atLeast, "only " + tests + " tests ran:\n" + out);
    }
}
