package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.Needs;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/emulated-hosts --mpi --yield} (docs/scale.md): Open MPI's mpirun in host 0 starts one
 * process per emulated host through the script's agent, each in its host's namespace with a TMPDIR of
 * its host's own (the orteds of 8 hosts sharing /tmp wrote one hwloc.sm, and one segfaulted), and
 * {@code -x} carries {@code lpf.engine.mpi.wait=poll} to every host. No JVM: the ranks are shells
 * that print where they run. The script's trap deletes its namespaces; the test checks that none is
 * left, nor any process of the job.
 */
class EmulatedHostsMpiTest {
    private static final Pattern RANK = Pattern.compile("rank ns=(\\S+) tmp=(\\S+) wait=(\\S*)");

    @Test
    void everyHostHasItsOwnTmpAndTheWaitSetting() throws Exception {
        Needs.that("root".equals(System.getProperty("user.name")), "the emulated hosts need root (network namespaces)");
        Path script = Path.of("..", "bin", "emulated-hosts").toAbsolutePath().normalize();
        assertTrue(Files.isExecutable(script), script + " is missing");
        Needs.that(onPath("mpirun.openmpi"), "Open MPI's mpirun.openmpi is not on the PATH");
        String marker = "lpf-test-" + UUID.randomUUID();
        String rank = "echo rank ns=$(ip netns identify $$) tmp=$TMPDIR wait=$LPF_ENGINE_MPI_WAIT";
        String host0 = "exec mpirun.openmpi --allow-run-as-root $LPF_ENGINE_MPI_LAUNCHEROPTIONS -n 3 sh -c '" + rank + "' " + marker;
        Process job = new ProcessBuilder(script.toString(), "--hosts", "3", "--timeout", "60", "--yield", "--mpi", "--",
                "sh", "-c", host0, marker).redirectErrorStream(true).start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(job.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                return "(output lost: " + e + ")";
            }
        });
        try {
            assertTrue(job.waitFor(90, TimeUnit.SECONDS), "bin/emulated-hosts did not end in 90 s");
            String out = output.get(30, TimeUnit.SECONDS);
            if (job.exitValue() == 3) Needs.missing("bin/emulated-hosts cannot set the hosts up here:\n" + out);
            assertEquals(0, job.exitValue(), out);
            Set<String> hosts = new TreeSet<>(), tmps = new TreeSet<>();
            Matcher m = RANK.matcher(out);
            while (m.find()) {
                hosts.add(m.group(1));
                tmps.add(m.group(2));
                assertTrue(m.group(2).endsWith("/tmp-" + m.group(1)), "host " + m.group(1) + "'s TMPDIR " + m.group(2) + ":\n" + out);
                assertEquals("poll", m.group(3), "--yield's wait setting on host " + m.group(1) + ":\n" + out);
            }
            assertEquals(Set.of("lpf4j-e0", "lpf4j-e1", "lpf4j-e2"), hosts, out);
            assertEquals(3, tmps.size(), out);
        } finally {
            job.descendants().forEach(ProcessHandle::destroyForcibly);
            job.destroy(); // the script's trap deletes its namespaces
            if (!job.waitFor(30, TimeUnit.SECONDS)) job.destroyForcibly();
            List<ProcessHandle> left = ProcessHandle.allProcesses()
                    .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false)).toList();
            left.forEach(ProcessHandle::destroyForcibly);
            assertTrue(left.isEmpty(), "processes of the job left behind: " + left);
        }
        Process ns = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
        String namespaces = new String(ns.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(ns.waitFor(30, TimeUnit.SECONDS));
        assertFalse(namespaces.contains("lpf4j-e"), "namespaces left behind:\n" + namespaces);
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) return true;
        }
        return false;
    }
}
