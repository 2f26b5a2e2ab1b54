package org.lpf4j.tools;

import org.lpf4j.tools.boot.BootJobs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lpf boot-test}: real jobs of separate JVMs (tcp) and under mpirun (pmix). */
class BootTestCommandTest {

    @AfterEach
    void noProcessLeft() {
        List<ProcessHandle> left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
        left.forEach(ProcessHandle::destroyForcibly);
        assertTrue(left.isEmpty(), "processes left behind: " + left.stream().map(h -> h.info().commandLine().orElse("?")).toList());
    }

    @Test
    void tcpJobsOfThreeJvmsCheckEveryValue() {
        Cli c = Cli.run("boot-test", "-p", "1,3", "--repeats", "3", "--warmup", "2").expect(0);
        assertTrue(c.out().lines().anyMatch(l -> l.trim().matches("3\\s+[0-9.]+")), c.out());
        assertTrue(c.out().lines().anyMatch(l -> l.trim().matches("1\\s+[0-9.]+")), c.out());
        assertTrue(c.out().contains("every value checked on every process: OK"), c.out());
    }

    @Test
    void tcpAndPmixSideBySide() {
        org.lpf4j.testkit.Needs.that(BootJobs.mpirun() != null, "mpirun is not on the PATH (install openmpi-bin)");
        Cli c = Cli.run("boot-test", "-p", "2", "--modules", "tcp,pmix", "--repeats", "3", "--warmup", "2").expect(0);
        assertTrue(c.out().contains("tcp/pmix"), c.out());
        assertTrue(c.out().lines().anyMatch(l -> l.trim().matches("2\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+")), c.out());
    }

    @Test
    void badArgumentsAreUsageErrors() {
        Cli.run("boot-test", "-p", "0").expectError(UsageException.EXIT_CODE, "-p 0 not in [1, 256]");
        Cli.run("boot-test", "--modules", "carrier-pigeon").expectError(UsageException.EXIT_CODE, "carrier-pigeon");
    }

    @Test
    void infoNeverPrintsTheJobKey() {
        Cli c = Cli.run("info", "--param", "lpf.boot.tcp.key=sesame-1234").expect(0);
        assertFalse(c.out().contains("sesame-1234"), c.out());
        assertTrue(c.out().contains("lpf.boot.tcp.key = (set, 11 characters, hidden)"), c.out());
        assertEquals(true, c.out().contains("tcp 0.1.0 (boot API 1.0.0): cannot run"), c.out());
    }
}
