package org.lpf4j.testkit;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One run of {@code bin/emulated-hosts} (network namespaces on a bridge, docs/scale.md) from a
 * module's tests: needs root ({@link Needs}: fails under {@code CI=true}), waits a bounded time,
 * and afterwards kills whatever of the run is left (found by a marker that the caller puts on
 * every command line of the job) and checks that neither a process of it nor a namespace of the
 * script is left. Exit status 3 (the script could not set the hosts up) is a missing capability.
 */
public final class EmulatedHostsScript {
    private EmulatedHostsScript() {}

    /**
     * @param args           the script's arguments ({@code --hosts N ... -- COMMAND ...}); COMMAND carries {@code marker}
     * @param environment    variables set ({@code null} value: removed) in the script's environment
     * @param marker         a string on the command line of every process of the job
     * @param timeoutSeconds how long the script may run
     * @return the script's output (its own lines and the job's), after it exited with status 0
     */
    public static String run(List<String> args, Map<String, String> environment, String marker, int timeoutSeconds) throws Exception {
        Needs.that("root".equals(System.getProperty("user.name")),
                () -> "the emulated hosts need root to create network namespaces; user is " + System.getProperty("user.name"));
        Path script = Path.of("..", "bin", "emulated-hosts").toAbsolutePath().normalize();
        assertTrue(Files.isExecutable(script), script + " is missing");
        List<String> command = new ArrayList<>(List.of(script.toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        environment.forEach((k, v) -> {
            if (v == null) builder.environment().remove(k); else builder.environment().put(k, v);
        });
        Process job = builder.start();
        CompletableFuture<String> output = ProcessOutput.drain(job.getInputStream());
        try {
            assertTrue(job.waitFor(timeoutSeconds, TimeUnit.SECONDS), "bin/emulated-hosts did not end in " + timeoutSeconds + " s");
            String out = output.get(30, TimeUnit.SECONDS);
            if (job.exitValue() == 3) Needs.missing("bin/emulated-hosts cannot set the hosts up here:\n" + out);
            assertEquals(0, job.exitValue(), out);
            return out;
        } finally {
            // The script's trap kills what runs in its namespaces and deletes them; SIGTERM reaches it through destroy.
            job.destroy();
            if (!job.waitFor(30, TimeUnit.SECONDS)) job.destroyForcibly();
            List<ProcessHandle> left = ProcessHandle.allProcesses()
                    .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false)).toList();
            left.forEach(ProcessHandle::destroyForcibly);
            assertTrue(left.isEmpty(), "processes of the job left behind: "
                    + left.stream().map(h -> h.pid() + " " + h.info().command().orElse("?")).toList());
            Process ns = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
            String namespaces = new String(ns.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(ns.waitFor(30, TimeUnit.SECONDS), "ip netns list did not end");
            assertFalse(namespaces.contains("lpf4j-e"), "namespaces of bin/emulated-hosts left behind:\n" + namespaces);
        }
    }
}
