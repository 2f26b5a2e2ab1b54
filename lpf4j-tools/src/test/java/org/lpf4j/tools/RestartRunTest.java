package org.lpf4j.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf run --checkpoint-dir --restarts} the way users run it: a process killed with
 * {@code kill -9} on the mpi and hybrid engines (real JVMs under mpirun), a process that throws on
 * the threads engine (rolled back in this JVM), and an explicit {@code --resume}. Every run must
 * finish, pass its sequential check, say that it restarted, and leave no process behind.
 */
@Timeout(300)
class RestartRunTest {
    @TempDir Path dir;


    /** @return whether {@code h} is a JVM of the job (not mpirun or the net engine's launcher, whose command lines name the same class) */
    static boolean isRankJvm(ProcessHandle h) {
        return h.info().command().map(c -> c.endsWith("/java")).orElse(false)
                && h.info().commandLine().map(c -> c.contains("--launched") && c.contains("LpfCommand")
                        && !c.contains("org.lpf4j.engine.net.NetLaunch")).orElse(false);
    }

    /** Waits until a checkpoint in {@code dir} is committed, then sends one of the job's JVMs {@code signal}; returns its pid. */
    private static long signalAfterFirstCommit(Path dir, Process lpf, String signal) {
        return signalAfterFirstCommit(dir, lpf, signal, () -> lpf.descendants().filter(RestartRunTest::isRankJvm).toList());
    }

    /**
     * Waits until a checkpoint in {@code dir} is committed, then sends the last of {@code jobJvms}
     * {@code signal}; returns its pid.
     */
    static long signalAfterFirstCommit(Path dir, Process lpf, String signal, java.util.function.Supplier<List<ProcessHandle>> jobJvms) {
        long pid = signalAfterFirstCommitOrEnd(dir, lpf, signal, jobJvms);
        if (pid == ENDED_FIRST) throw new AssertionError("no checkpoint was committed in " + dir
                + ": lpf ended first, with exit status " + lpf.exitValue());
        return pid;
    }

    /** What {@link #signalAfterFirstCommitOrEnd} returns when lpf ended before a checkpoint was committed. */
    private static final long ENDED_FIRST = -1;

    /**
     * As {@link #signalAfterFirstCommit(Path, Process, String, java.util.function.Supplier)}, but
     * returns {@link #ENDED_FIRST} when lpf ends before a checkpoint is committed.
     */
    private static long signalAfterFirstCommitOrEnd(Path dir, Process lpf, String signal,
                                                    java.util.function.Supplier<List<ProcessHandle>> jobJvms) {
        long deadline = System.nanoTime() + 120_000_000_000L;
        try {
            while (System.nanoTime() < deadline) {
                boolean alive = lpf.isAlive(); // before looking: a commit seen after it ended still counts
                boolean committed;
                try (Stream<Path> s = Files.exists(dir) ? Files.list(dir) : Stream.empty()) {
                    committed = s.anyMatch(d -> Files.exists(d.resolve("COMMITTED")));
                }
                if (committed && alive) {
                    List<ProcessHandle> ranks = jobJvms.get();
                    if (ranks.isEmpty()) throw new AssertionError("no JVM of the job found to signal");
                    long pid = ranks.getLast().pid();
                    new ProcessBuilder("kill", signal, Long.toString(pid)).start().waitFor();
                    return pid;
                }
                if (!alive) return ENDED_FIRST;
                Thread.sleep(50);
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("no checkpoint was committed in " + dir + " within 120 s");
    }

    private void assertSurvivedAKill(String engine, String... layout) throws Exception {
        assertSurvivedAKill(engine, 20000, layout); // about 3 s of iterations on a quiet machine: the kill lands mid-run
    }

    /**
     * Runs PageRank with {@code iterations} under {@code lpf run --restarts 1}, kills one of its JVMs
     * once a checkpoint is committed, and checks that the job restarted from it and finished right.
     * A job that finished correctly before its first commit (a machine much quicker than the
     * iterations were chosen for) is run again with four times the iterations, twice at most.
     */
    private void assertSurvivedAKill(String engine, int iterations, String... layout) throws Exception {
        Launchable.need(engine);
        for (int attempt = 1; ; attempt++, iterations *= 4, deleteTree(dir)) {
            List<String> args = new java.util.ArrayList<>(List.of("run", "--engine", engine));
            args.addAll(List.of(layout));
            args.addAll(List.of("--checkpoint-dir", dir.toString(), "--checkpoint-every", "200ms", "--restarts", "1",
                    "org.lpf4j.examples.PageRank", "12", "8", Integer.toString(iterations)));
            long[] killed = {0};
            LpfJvm r = LpfJvm.run(240, List.of(), Map.of(), proc -> killed[0] = signalAfterFirstCommitOrEnd(dir, proc, "-9",
                    () -> proc.descendants().filter(RestartRunTest::isRankJvm).toList()), args.toArray(String[]::new));
            assertTrue(r.done(), r::both);
            assertEquals(0, r.exitCode(), r::both);
            assertTrue(r.out().contains("PageRank, " + iterations + " iterations") && r.out().contains("equal the sequential ones"),
                    r::both);
            assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
            if (killed[0] == ENDED_FIRST) {
                assertTrue(attempt < 3, () -> "the job finished before its first checkpoint three times:\n" + r.both());
                continue;
            }
            assertTrue(r.out().contains("lpf run: the job failed (exit status"), r::both);
            assertTrue(r.out().contains("restart 1 of 1 from the last complete checkpoint in " + dir), r::both);
            assertTrue(r.err().contains("lpf4j cr: PageRank 12 8 " + iterations + " 3 resumed from checkpoint "), r::both);
            return;
        }
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        if (!Files.exists(root)) return;
        try (Stream<Path> s = Files.walk(root)) {
            for (Path f : s.sorted(java.util.Comparator.reverseOrder()).toList()) if (!f.equals(root)) Files.delete(f);
        }
    }

    @Test
    void aRankKilledOnTheMpiEngineIsRestartedFromTheLastCheckpoint() throws Exception {
        assertSurvivedAKill("mpi", "-p", "3");
    }

    @Test
    void aRankKilledUnderMpichIsRestartedFromTheLastCheckpoint() throws Exception {
        Launchable.needMpich();
        // MPICH's oversubscribed ranks wait by polling and yielding: a sync costs far more than under
        // Open MPI on a loaded 2-core machine, so the job is shorter.
        assertSurvivedAKill("mpi", 1500, "-p", "3", "--param", "lpf.engine.mpi.library=libmpich.so.12");
    }

    @Test
    void aFrozenRankIsDetectedByTheSyncDeadlineAndTheJobRestarted() throws Exception {
        Launchable.need("mpi");
        long[] stopped = {0};
        LpfJvm r;
        try {
            r = LpfJvm.run(240, List.of(), Map.of(), proc -> stopped[0] = signalAfterFirstCommit(dir, proc, "-STOP"),
                    "run", "--engine", "mpi", "-p", "3", "--param", "lpf.engine.mpi.syncTimeout=2000",
                    "--checkpoint-dir", dir.toString(), "--checkpoint-every", "200ms", "--restarts", "1",
                    "org.lpf4j.examples.PageRank", "12", "8", "8000");
        } finally {
            if (stopped[0] != 0) ProcessHandle.of(stopped[0]).ifPresent(ProcessHandle::destroyForcibly);
        }
        assertTrue(r.done(), r::both);
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.err().contains("is stopped by a signal (state T)"), r::both);
        assertTrue(r.out().contains("restart 1 of 1 from the last complete checkpoint in " + dir), r::both);
        assertTrue(r.err().contains("resumed from checkpoint "), r::both);
        assertTrue(r.out().contains("equal the sequential ones"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    @Test
    void aNodeKilledOnTheHybridEngineIsRestartedFromTheLastCheckpoint() throws Exception {
        assertSurvivedAKill("hybrid", "--nodes", "2", "-p", "4");
    }

    @Test
    void aProcessThatThrowsOnTheThreadsEngineRollsBackInThisJvm() {
        for (String[] module : List.of(new String[]{"--param", "lpf.cr=memory"},
                new String[]{"--checkpoint-dir", dir.resolve("threads").toString()})) {
            FailsOnce.RUNS.set(0);
            List<String> args = new java.util.ArrayList<>(List.of("run", "--engine", "threads", "-p", "3", "--restarts", "2"));
            args.addAll(List.of(module));
            args.add(FailsOnce.class.getName());
            Cli c = Cli.run(args.toArray(String[]::new)).expect(0);
            long want = 199 * 200 / 2; // pid 0's sum of its steps, as in a run without failure
            String out = c.out();
            assertTrue(out.contains("lpf run: the section failed: ") && out.contains("injected at step 55")
                    && out.contains("restart 1 of 2 from the last complete checkpoint"), out);
            assertTrue(out.contains("sum " + want + ", resumed at "), out);
            assertFalse(out.contains("resumed at -1"), "the retry resumed from a checkpoint: " + out);
            assertEquals(2, FailsOnce.RUNS.get(), out);
            Cli.assertNoLpfThreads();
        }
    }

    @Test
    void resumeRestartsAFinishedJobFromItsLastCheckpoint() {
        FailsOnce.RUNS.set(1); // no failure
        String d = dir.resolve("explicit").toString();
        String fresh = Cli.run("run", "-p", "2", "--checkpoint-dir", d, FailsOnce.class.getName()).expect(0).out();
        assertTrue(fresh.contains("sum 19900, resumed at -1"), fresh);
        Cli again = Cli.run("run", "-p", "2", "--checkpoint-dir", d, "--resume", FailsOnce.class.getName()).expect(0);
        assertTrue(again.out().matches("(?s).*sum 19900, resumed at [1-9][0-9]*\\n.*"), again.out());
    }

    @Test
    void badCheckpointOptionsAreUsageErrors() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "x");
        Cli.run("run", "-p", "2", "--checkpoint-dir", file.resolve("sub").toString(), FailsOnce.class.getName())
                .expectError(UsageException.EXIT_CODE, "--checkpoint-dir");
        Cli.run("run", "-p", "2", "--checkpoint-every", "10s", FailsOnce.class.getName())
                .expectError(UsageException.EXIT_CODE, "--checkpoint-every needs a cr module that keeps checkpoints");
        Cli.run("run", "-p", "2", "--checkpoint-dir", dir.toString(), "--checkpoint-every", "often", FailsOnce.class.getName())
                .expectError(UsageException.EXIT_CODE, "--checkpoint-every=often: not a duration");
        Cli.run("run", "-p", "2", "--resume", FailsOnce.class.getName())
                .expectError(UsageException.EXIT_CODE, "--resume needs --checkpoint-dir");
        Cli.run("run", "--restarts", "1", LaunchedRunTest.MainOnEveryRank.class.getName())
                .expectError(UsageException.EXIT_CODE, "--restarts needs an org.lpf4j.Spmd program");
    }
}
