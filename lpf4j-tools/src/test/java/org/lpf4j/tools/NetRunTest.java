package org.lpf4j.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.testkit.MeshPaths;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The net engine the way users run it: {@code lpf run --engine net -p N} starts N JVMs on this
 * machine (booted by the tcp module, connected over loopback TCP, no native library). The
 * examples pass their own checks; a JVM killed with {@code kill -9} ends the job with a message
 * naming it and leaves nothing behind; {@code --restarts} resumes from a checkpoint.
 */
@Timeout(300)
class NetRunTest {
    @TempDir Path dir;

    /** @return the entries of lpf4j in {@code /dev/shm} (shared-memory rings, a launcher's job directory) */
    static Set<String> shmEntries() throws java.io.IOException {
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("lpf4j")).collect(Collectors.toSet());
        }
    }

    /** Asserts that no entry of lpf4j is in {@code /dev/shm} that was not in {@code before}. */
    static void assertNothingLeftInDevShm(Set<String> before, LpfJvm r) throws java.io.IOException {
        Set<String> left = new java.util.TreeSet<>(shmEntries());
        left.removeAll(before);
        assertTrue(left.isEmpty(), () -> "left in /dev/shm: " + left + "\n" + r.both());
    }

    /** As issue 42's "done when" says: the PageRank check on 4 JVMs of one host, over shared memory, leaving nothing in /dev/shm. */
    @Test
    void pageRankPassesItsCheckOnFourJvmsOverSharedMemory() throws Exception {
        Set<String> before = shmEntries();
        LpfJvm r = LpfJvm.run(240, "run", "--engine", "net", "-p", "4", "--param", "lpf.engine.net.showPaths=true",
                "org.lpf4j.examples.PageRank", "16", "16", "200");
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.out().contains("equal the sequential ones"), r::both);
        assertTrue(r.out().contains("on the net engine"), r::both);
        Map<Integer, MeshPaths.Ranks> paths = MeshPaths.read(r.both(), 4);
        assertEquals(Set.of(0, 1, 2, 3), paths.keySet(), r::both);
        for (MeshPaths.Ranks rank : paths.values()) {
            assertFalse(rank.peers().get(MeshPaths.SHARED_MEMORY).isEmpty(), rank::text);
            assertEquals(List.of(), rank.peers().get(MeshPaths.TCP), rank::text);
        }
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
        assertNothingLeftInDevShm(before, r);
    }

    @Test
    void innerProductPassesItsCheckOnThreeJvms() throws Exception {
        LpfJvm r = LpfJvm.run(240, "run", "--engine", "net", "-p", "3", "org.lpf4j.examples.InnerProduct");
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.out().contains("p=3"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /** Ranks that share rank 0's JVM ({@code lpf.engine.net.perJvm}) are timed there too; the note names only the others. */
    @Test
    void theRanksOfRankZerosJvmAreTimedThere() throws Exception {
        LpfJvm r = LpfJvm.run(240, "run", "--engine", "net", "-p", "4", "--param", "lpf.engine.net.perJvm=2",
                "org.lpf4j.examples.InnerProduct");
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.out().contains("p=4  supersteps="), r::both);
        assertTrue(r.out().contains("note: timed in this JVM only (pids 0-1); pids 2-3 ran in other JVMs"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    @Test
    void aJvmKilledMidRunEndsTheJobNamingItAndLeavesNothing() throws Exception {
        Path cp = dir.resolve("running"); // a committed checkpoint says the job is past its start-up
        LpfJvm r = LpfJvm.run(240, List.of(), Map.of(), proc -> killAfterFirstCommit(cp, proc),
                "run", "--engine", "net", "-p", "3", "--checkpoint-dir", cp.toString(), "--checkpoint-every", "200ms",
                "org.lpf4j.examples.PageRank", "12", "8", "200000");
        assertTrue(r.done(), r::both);
        assertNotEquals(0, r.exitCode(), r::both);
        assertTrue(r.err().contains("exited with status 137"), r::both);
        assertTrue(r.both().matches("(?s).*exec\\(p=3\\) failed: [^\\n]*pid 2[^\\n]*died or was killed.*"), r::both);
        assertTrue(!r.err().contains("still running"), () -> "the others ended by themselves: " + r.both());
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /** Waits until a checkpoint in {@code cp} is committed, then kills the job's last JVM with SIGKILL. */
    private static void killAfterFirstCommit(Path cp, Process proc) {
        // The ranks are the launcher's children, never lpf run's own (the launcher is).
        RestartRunTest.signalAfterFirstCommit(cp, proc, "-9", () -> proc.descendants().filter(RestartRunTest::isRankJvm)
                .filter(h -> h.parent().map(parent -> parent.pid() != proc.pid()).orElse(true))
                .sorted(java.util.Comparator.comparingLong(ProcessHandle::pid)).toList());
    }

    @Test
    void aKilledJvmIsRestartedFromTheLastCheckpoint() throws Exception {
        Set<String> before = shmEntries();
        Path cp = dir.resolve("cp");
        LpfJvm r = LpfJvm.run(240, List.of(), Map.of(), proc -> killAfterFirstCommit(cp, proc),
                "run", "--engine", "net", "-p", "3", "--checkpoint-dir", cp.toString(), "--checkpoint-every", "200ms",
                "--restarts", "1", "org.lpf4j.examples.PageRank", "12", "8", "20000");
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.out().contains("restart 1 of 1 from the last complete checkpoint"), r::both);
        assertTrue(r.err().contains("resumed from checkpoint "), r::both);
        assertTrue(r.out().contains("equal the sequential ones"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
        assertNothingLeftInDevShm(before, r);
    }
}
