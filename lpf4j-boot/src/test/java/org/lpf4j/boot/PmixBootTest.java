package org.lpf4j.boot;

import org.junit.jupiter.api.Test;
import org.lpf4j.testkit.Needs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The boot rules with the {@code pmix} module: 4 JVMs started by Open MPI's mpirun (PMIx-enabled),
 * each selecting {@code pmix} by priority and calling libpmix.so.2 through java.lang.foreign.
 * Skipped (with the reason) when mpirun or libpmix is absent. The failure rules are left out:
 * under mpirun a process that exits early ends the whole job, and PMIx names no missing ranks.
 */
class PmixBootTest {

    static String mpirun() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, "mpirun"))) return Path.of(dir, "mpirun").toString();
        }
        return null;
    }

    static List<String> mpirunCommand(String mpirun, int n) {
        List<String> c = new ArrayList<>(List.of(mpirun));
        if ("root".equals(System.getProperty("user.name"))) c.add("--allow-run-as-root");
        c.addAll(List.of("--oversubscribe", "-n", Integer.toString(n)));
        return c;
    }

    @Test
    void everyRuleHoldsUnderMpirun() throws Exception {
        String mpirun = mpirun();
        Needs.that(mpirun != null, "mpirun is not on the PATH (install openmpi-bin)");
        Needs.that(Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libpmix.so.2")) || Files.exists(Path.of("/usr/lib64/libpmix.so.2")),
                "libpmix.so.2 not installed (install libpmix2)");
        int n = 4;
        List<String> command = mpirunCommand(mpirun, n);
        command.addAll(Jvms.java(BootWorker.class, "rules", "FAILURES", "EVERY_KEY"));
        try (Jvms jvms = new Jvms()) {
            jvms.start(command, Map.of());
            jvms.awaitAll(150_000);
            String out = jvms.output(0);
            assertEquals(0, jvms.process(0).exitValue(), out);
            for (int r = 0; r < n; r++) {
                assertTrue(out.contains("PASS rank " + r), out);
                assertTrue(out.contains("[pmix " + r + "/" + n + "] done"), "rank " + r + " used the pmix module\n" + out);
            }
        }
    }
}
