package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.EmulatedHostsScript;
import org.lpf4j.testkit.Needs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        Needs.that(onPath("mpirun.openmpi"), "Open MPI's mpirun.openmpi is not on the PATH");
        String marker = "lpf-test-" + UUID.randomUUID();
        String rank = "echo rank ns=$(ip netns identify $$) tmp=$TMPDIR wait=$LPF_ENGINE_MPI_WAIT";
        String host0 = "exec mpirun.openmpi --allow-run-as-root $LPF_ENGINE_MPI_LAUNCHEROPTIONS -n 3 sh -c '" + rank + "' " + marker;
        String out = EmulatedHostsScript.run(List.of("--hosts", "3", "--timeout", "60", "--yield", "--mpi", "--",
                "sh", "-c", host0, marker), Map.of(), marker, 90);
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
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) return true;
        }
        return false;
    }
}
