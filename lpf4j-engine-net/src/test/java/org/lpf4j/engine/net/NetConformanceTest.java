package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
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
 * The whole conformance suite on the net engine with real JVMs: {@link NetLaunch} starts 8 JVMs
 * (tcp boot on loopback, a mesh of authenticated connections), rank 0 runs the suite
 * ({@code ConformanceMain}, limited to the {@code net} engine), so every {@code exec(p)},
 * p = 1, 2, 3, 4, 5, 8, runs on p JVMs; a second job of 4 JVMs runs it with the debug layer on;
 * one job of 8 JVMs runs the suites of the collectives, BSMP and BSPlib, unchanged.
 * Bounded in time; the job's process tree is killed in {@code finally}, and no JVM of it may be
 * left afterwards.
 */
@Timeout(900)
class NetConformanceTest {
    private static final Pattern SUMMARY = Pattern.compile("CONFORMANCE tests=(\\d+) succeeded=(\\d+) failed=(\\d+)");

    private static String job(int jvms, List<String> options, String... suites) throws Exception {
        String marker = "lpf.test.marker=" + UUID.randomUUID();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> rank = new ArrayList<>(List.of(java, "-Xss1m", "--enable-native-access=ALL-UNNAMED", "-D" + marker,
                "-Dlpf.engine=net", "-Dlpf.test.engine=net", "-Dlpf.engine.net.syncTimeout=120000"));
        rank.addAll(options);
        rank.addAll(List.of("-cp", cp, "org.lpf4j.engine.mpi.testing.ConformanceMain"));
        rank.addAll(List.of(suites));
        List<String> command = new ArrayList<>(List.of(java, "-D" + marker, "-cp", cp, NetLaunch.class.getName(),
                Integer.toString(jvms)));
        command.addAll(rank);
        Process launch = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(launch.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                return "(output lost: " + e + ")";
            }
        });
        try {
            assertTrue(launch.waitFor(600, TimeUnit.SECONDS), "the job did not end in 600 s");
            String text = out.get(30, TimeUnit.SECONDS);
            assertEquals(0, launch.exitValue(), text);
            return text;
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

    private static void assertPassed(String out, int atLeast) {
        Matcher m = SUMMARY.matcher(out);
        assertTrue(m.find(), "no summary line:\n" + out);
        int tests = Integer.parseInt(m.group(1)), failed = Integer.parseInt(m.group(3));
        assertEquals(0, failed, out.lines().filter(l -> l.startsWith("FAILED")).reduce("", (a, b) -> a + "\n" + b));
        assertTrue(tests >= atLeast, "only " + tests + " tests ran:\n" + out);
    }

    @Test
    void theSuiteOnEightJvms() throws Exception {
        assertPassed(job(8, List.of()), 150);
    }

    @Test
    void theSuiteOnFourJvmsWithTheDebugLayer() throws Exception {
        assertPassed(job(4, List.of("-Dlpf.debug=true", "-Dlpf.conformance.maxP=4")), 90);
    }

    @Test
    void theLibrarySuitesOnEightJvms() throws Exception {
        assertPassed(job(8, List.of(), "package:org.lpf4j.coll", "package:org.lpf4j.bsmp", "package:org.lpf4j.bsplib"), 300);
    }
}
