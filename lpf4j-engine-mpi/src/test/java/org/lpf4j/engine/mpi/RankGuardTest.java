package org.lpf4j.engine.mpi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guards' election directories of jobs started by hand: those of a job whose launcher daemon
 * is gone (a rank died, so no JVM removed it) are removed by the next rank that starts; those of a
 * running daemon stay. The {@link DeathLatch} names the rank that died first even when that rank's
 * guard runs last, and leaves nothing when the ranks end normally. (The guard under real launchers
 * is tested by FaultTest.)
 */
class RankGuardTest {
    private static final int RANKS = 2;

    @Test
    void theFirstDeathIsNamedEvenWhenItsGuardWakesLast(@TempDir Path dir) throws Exception {
        List<Process> ranks = new ArrayList<>();
        List<ProcessHandle> guards = new ArrayList<>();
        try {
            for (int k = 0; k < RANKS; k++) ranks.add(rank(dir, k, "wait"));
            for (Process r : ranks) guards.add(guardOf(r));
            // Rank 1 dies first, but its guard cannot run until the launcher has killed rank 0 and
            // rank 0's guard has decided: without the latch, rank 0's guard would win the election.
            signal("STOP", guards.get(1));
            ranks.get(1).destroyForcibly().waitFor();
            ranks.get(0).destroyForcibly().waitFor();
            assertTrue(guards.get(0).onExit().get(20, TimeUnit.SECONDS) != null);
            assertFalse(Files.exists(dir.resolve(RankGuard.FIRST)), "rank 0's guard stays silent");
            signal("CONT", guards.get(1));
            guards.get(1).onExit().get(20, TimeUnit.SECONDS);
            String report = Files.readString(dir.resolve(RankGuard.FIRST));
            assertTrue(report.startsWith("lpf4j mpi: rank 1 (pid " + ranks.get(1).pid() + " on host "), report);
            assertTrue(semaphoreSetExists(dir), "after a death the set waits for the launching side");
        } finally {
            for (Process r : ranks) r.destroyForcibly();
            for (ProcessHandle g : guards) {
                signal("CONT", g);
                g.destroyForcibly();
            }
            DeathLatch.removeFor(dir);
        }
        assertFalse(semaphoreSetExists(dir));
    }

    @Test
    void ranksThatEndNormallyLeaveNoReportAndNoSemaphores(@TempDir Path dir) throws Exception {
        List<Process> ranks = new ArrayList<>();
        try {
            for (int k = 0; k < RANKS; k++) ranks.add(rank(dir, k, "end"));
            for (Process r : ranks) {
                assertTrue(r.waitFor(60, TimeUnit.SECONDS));
                assertEquals(0, r.exitValue());
            }
            // Each guard reads its rank's goodbye and exits; one that (wrongly) reported did so before it exited.
            awaitGuardsGone(dir);
            assertFalse(Files.exists(dir.resolve(RankGuard.FIRST)), () -> "no death: " + read(dir));
            assertFalse(semaphoreSetExists(dir), "the last rank to end removes the set");
        } finally {
            for (Process r : ranks) r.destroyForcibly();
            DeathLatch.removeFor(dir);
        }
    }

    /** Starts local rank k of RANKS as a launcher would, and waits until its guard runs. */
    private static Process rank(Path dir, int k, String mode) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx64m",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), GuardedMain.class.getName(), mode)
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        for (String v : RankGuard.RANK_VARIABLES) pb.environment().remove(v);
        pb.environment().keySet().removeIf(v -> v.startsWith("OMPI_") || v.startsWith("MPI_LOCAL"));
        pb.environment().put("PMI_RANK", Integer.toString(k));
        pb.environment().put("MPI_LOCALRANKID", Integer.toString(k));
        pb.environment().put("MPI_LOCALNRANKS", Integer.toString(RANKS));
        pb.environment().put(RankGuard.REPORTS, dir.toString());
        Process p = pb.start();
        String line = new BufferedReader(new InputStreamReader(p.getInputStream())).readLine();
        assertEquals("ready", line, "rank " + k + " started");
        return p;
    }

    /** Waits until no guard of the ranks reporting to {@code dir} runs any more (at most 30 s, else fails). */
    private static void awaitGuardsGone(Path dir) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (guardsRunning(dir) && System.nanoTime() < deadline) Thread.sleep(20);
        assertFalse(guardsRunning(dir), "a guard still runs 30 s after its rank ended");
    }

    private static boolean guardsRunning(Path dir) {
        return ProcessHandle.allProcesses().anyMatch(h -> {
            String line = h.info().commandLine().orElse("");
            return line.contains("lpf4j-rank-guard") && line.contains(dir.toString());
        });
    }

    private static ProcessHandle guardOf(Process rank) {
        return rank.children().filter(h -> h.info().commandLine().orElse("").contains("lpf4j-rank-guard")
                || h.info().command().orElse("").endsWith("sh")).findFirst()
                .orElseThrow(() -> new AssertionError("no guard under pid " + rank.pid()));
    }

    private static void signal(String name, ProcessHandle h) throws Exception {
        new ProcessBuilder("kill", "-" + name, Long.toString(h.pid())).start().waitFor();
    }

    private static boolean semaphoreSetExists(Path dir) throws Exception {
        Process p = new ProcessBuilder("ipcs", "-s").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out.contains(String.format("0x%08x", DeathLatch.keyOf(dir)));
    }

    private static String read(Path dir) {
        try {
            return Files.readString(dir.resolve(RankGuard.FIRST));
        } catch (IOException e) {
            return "(none)";
        }
    }

    @Test
    void staleElectionDirectoriesGoAndLiveOnesStay(@TempDir Path tmp) throws Exception {
        ProcessHandle self = ProcessHandle.current();
        long start = self.info().startInstant().orElseThrow().toEpochMilli();
        Path live = Files.createDirectory(tmp.resolve("lpf4j-mpi-" + self.pid() + "-" + start));
        Path reused = Files.createDirectory(tmp.resolve("lpf4j-mpi-" + self.pid() + "-" + (start - 1000))); // a reused pid
        Path dead = Files.createDirectory(tmp.resolve("lpf4j-mpi-" + Integer.MAX_VALUE + "-1"));
        Files.writeString(dead.resolve("first"), "lpf4j mpi: rank 3 ... died");
        Path launching = Files.createDirectory(tmp.resolve("lpf4j-mpi.abc123")); // lpf run's own: not touched
        RankGuard.removeStale(tmp);
        assertTrue(Files.isDirectory(live));
        assertTrue(Files.isDirectory(launching));
        assertFalse(Files.exists(reused));
        assertFalse(Files.exists(dead));
    }
}
