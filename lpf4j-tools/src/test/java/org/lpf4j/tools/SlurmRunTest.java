package org.lpf4j.tools;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.testkit.Needs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lpf run} under a real Slurm ({@link SlurmCluster}, started once for the class, as root;
 * skipped otherwise): inside {@code salloc} it starts the job with {@code srun} (Open MPI through
 * Slurm's PMIx plugin, MPICH through PMI-2), as tasks of {@code srun} each task is one rank (with
 * {@code -Dlpf.engine=mpi} or chosen by itself), in an {@code sbatch} script and as the only task of a
 * step it launches too, the hybrid engine's node JVMs start the same way, MPICH's tasks under the
 * wrong plugin refuse to run alone, {@code lpf boot-test} boots through PMIx (and refuses without
 * it), {@code kill} of lpf run ends its step, and a task killed with {@code kill -9} is named and the
 * job resumes from its checkpoint. Every test checks the
 * program's printed result (srun exits 0 even when every task ran alone), that no JVM of the run is
 * left, and that {@code squeue} is empty afterwards.
 */
@Timeout(300)
class SlurmRunTest {
    private static SlurmCluster slurm;
    private static final String PAGERANK = "org.lpf4j.examples.PageRank";

    @TempDir Path dir;

    @BeforeAll
    static void startSlurm() throws Exception {
        String why = SlurmCluster.unavailable();
        Needs.that(why == null, () -> "no Slurm test cluster: " + why);
        try {
            slurm = new SlurmCluster();
        } catch (IllegalStateException e) { // the daemons do not run in this container: say exactly why
            Needs.missing("the Slurm test cluster did not start here: " + e.getMessage());
        }
    }

    @AfterAll
    static void stopSlurm() throws Exception {
        if (slurm == null) return;
        List<String> left;
        try {
            slurm.close();
        } finally {
            left = slurm.leftovers();
            slurm = null;
        }
        assertTrue(left.isEmpty(), () -> "Slurm processes left behind: " + left);
    }

    private static LpfJvm lpf(List<String> launcher, List<String> jvmOptions, BiConsumer<Process, String> during, String... args)
            throws Exception {
        return LpfJvm.run(240, launcher, jvmOptions, slurm.env(), during, args);
    }

    /** Asserts a run that finished, printed PageRank's checked result for p once, and left nothing behind. */
    private static void assertPageRank(LpfJvm r, int p) throws Exception {
        String all = r.both() + "\n" + slurm.logs();
        assertTrue(r.done(), all);
        assertEquals(0, r.exitCode(), all);
        String result = p + " processes: pid 0's ";
        assertEquals(1, r.out().split(java.util.regex.Pattern.quote(result), -1).length - 1, "the result once, for p = " + p + ": " + all);
        assertTrue(r.out().contains("equal the sequential ones"), all);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
        assertEquals("", slurm.jobsLeft(), "squeue after the run");
    }

    @Test
    void insideAnAllocationLpfInfoSaysLpfRunStartsSrun() throws Exception {
        LpfJvm r = lpf(List.of("salloc", "-n", "1"), List.of(), (p, m) -> {}, "info");
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.out().contains("lpf run -p N starts: srun --mpi=pmix (auto: inside Slurm allocation "), r::both);
        assertTrue(r.out().contains("lpf.engine.mpi.launcher = auto"), r::both);
    }

    @Test
    void insideSallocLpfRunStartsOpenMpiRanksWithSrun() throws Exception {
        LpfJvm r = lpf(List.of("salloc", "-n", "4"), List.of(), (p, m) -> {},
                "run", "--engine", "mpi", "-p", "4", PAGERANK, "12", "8", "20");
        assertPageRank(r, 4);
        assertTrue(r.out().contains("on the mpi engine (--engine mpi), p = 4 (-p 4)"), r::both);
    }

    @Test
    void insideSallocLpfRunStartsNetTasksWithSrun() throws Exception {
        LpfJvm r = lpf(List.of("salloc", "-n", "3"), List.of(), (p, m) -> {},
                "run", "--engine", "net", "-p", "3", "--nodes", "1", PAGERANK, "12", "8", "20");
        assertPageRank(r, 3);
        assertTrue(r.out().contains("on the net engine (--engine net), p = 3 (-p 3)"), r::both);
    }

    /** The only task of a step (the shell of {@code srun --pty bash}) launches a step of its own, sharing its CPUs. */
    @Test
    void theOnlyTaskOfAStepLaunchesWithSrun() throws Exception {
        LpfJvm r = lpf(List.of("srun", "-n", "1", "-c", "3"), List.of(), (p, m) -> {},
                "run", "--engine", "mpi", "-p", "3", PAGERANK, "12", "8", "20");
        assertPageRank(r, 3);
    }

    @Test
    void insideSallocLpfRunStartsMpichRanksWithSrunAndPmi2() throws Exception {
        Needs.that(Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libmpich.so.12")), "MPICH (libmpich.so.12) is not installed");
        LpfJvm r = lpf(List.of("salloc", "-n", "3"), List.of(), (p, m) -> {},
                "run", "--engine", "mpi", "-p", "3", "--param", "lpf.engine.mpi.library=libmpich.so.12", PAGERANK, "12", "8", "20");
        assertPageRank(r, 3);
    }

    @Test
    void insideSallocTheHybridEngineStartsItsNodeJvmsWithSrun() throws Exception {
        LpfJvm r = lpf(List.of("salloc", "-n", "2"), List.of(), (p, m) -> {},
                "run", "--engine", "hybrid", "--nodes", "2", "-p", "4", PAGERANK, "12", "8", "20");
        assertPageRank(r, 4);
        assertTrue(r.out().contains("on the hybrid engine: p=4"), r::both);
    }

    /** MPICH's tasks under srun's PMIx plugin are singletons (srun exits 0): each refuses, naming the plugin to use. */
    @Test
    void mpichTasksUnderThePmixPluginRefuseToRunAlone() throws Exception {
        Needs.that(Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libmpich.so.12")), "MPICH (libmpich.so.12) is not installed");
        LpfJvm r = lpf(List.of("srun", "--mpi=pmix", "-n", "2"), List.of(), (p, m) -> {},
                "run", "--engine", "mpi", "--param", "lpf.engine.mpi.library=libmpich.so.12", PAGERANK, "12", "8", "20");
        assertTrue(r.done(), r::both);
        assertTrue(r.exitCode() != 0, r::both);
        assertTrue(r.both().contains("(SLURM_STEP_NUM_TASKS=2, set by Slurm's srun) but MPI_Comm_size(MPI_COMM_WORLD) of"
                + " libmpich.so.12 (MPICH) says 1") && r.both().contains("srun --mpi=pmi2 for MPICH"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /** {@code srun java ... -Dlpf.engine=mpi ... lpf run}: every task is one rank (rank 0 prints). */
    @Test
    void tasksOfAnSrunStepAreTheRanks() throws Exception {
        LpfJvm r = lpf(List.of("srun", "--mpi=pmix", "-n", "4"), List.of("-Dlpf.engine=mpi"), (p, m) -> {},
                "run", PAGERANK, "12", "8", "20");
        assertPageRank(r, 4);
    }

    /** {@code srun --mpi=pmix java ... lpf run --engine net}: the tasks boot through Slurm's PMIx and connect over TCP, with no libmpi. */
    @Test
    void tasksOfAnSrunStepRunTheNetEngineBootedByPmix() throws Exception {
        LpfJvm r = lpf(List.of("srun", "--mpi=pmix", "-n", "3"), List.of(), (p, m) -> {},
                "run", "--engine", "net", PAGERANK, "12", "8", "20");
        assertPageRank(r, 3);
        assertTrue(r.out().contains("on the net engine"), r::both);
    }

    /**
     * Without {@code --engine}: a task of a step of 2 on one node is an MPI rank (Slurm's local count
     * is 2, so the hybrid engine, which wants one JVM per node, is not chosen).
     */
    @Test
    void tasksOfAnSrunStepChooseTheMpiEngineThemselves() throws Exception {
        LpfJvm r = lpf(List.of("srun", "--mpi=pmix", "-n", "2"), List.of(), (p, m) -> {}, "run", PAGERANK, "12", "8", "5");
        assertPageRank(r, 2);
        assertTrue(r.out().contains("on the mpi engine (the usable engine of highest priority), p = 2"), r::both);
    }

    @Test
    void bootTestUnderSrunBootsThroughPmix() throws Exception {
        LpfJvm r = lpf(List.of("srun", "--mpi=pmix", "-n", "3"), List.of(), (p, m) -> {}, "boot-test");
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.out().contains("BOOT-TEST module=pmix p=3"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
        assertEquals("", slurm.jobsLeft(), "squeue after the run");
    }

    /** Without a PMIx plugin every task would start a boot test of its own: each refuses and says what to run. */
    @Test
    void bootTestUnderSrunWithoutPmixSaysWhatToRun() throws Exception {
        LpfJvm r = lpf(List.of("srun", "--mpi=none", "-n", "2"), List.of(), (p, m) -> {}, "boot-test");
        assertTrue(r.done(), r::both);
        assertTrue(r.both().contains("lpf boot-test: this is one of 2 tasks of an srun step without PMIx;"
                + " run srun --mpi=pmix ... lpf boot-test"), r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
    }

    /** An sbatch script runs in the batch step (SLURM_PROCID=0, SLURM_NTASKS=2, no step id): it launches, it is no rank. */
    @Test
    void anSbatchScriptLaunchesWithSrun() throws Exception {
        Path out = dir.resolve("job.out");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dlpf.test.job=" + dir,
                "-cp", System.getProperty("java.class.path"), LpfCommand.class.getName(),
                "run", "--engine", "mpi", "-p", "2", PAGERANK, "12", "8", "20"));
        Path script = Files.writeString(dir.resolve("job.sh"), "#!/bin/sh\nexec " + String.join(" ", command.stream()
                .map(a -> "'" + a.replace("'", "'\\''") + "'").toList()) + "\n");
        ProcessBuilder pb = new ProcessBuilder("sbatch", "--wait", "-n", "2", "-o", out.toString(), script.toString()).redirectErrorStream(true);
        pb.environment().putAll(slurm.env());
        Process sbatch = pb.start();
        String said;
        try {
            assertTrue(sbatch.waitFor(200, java.util.concurrent.TimeUnit.SECONDS), "sbatch --wait did not end in 200 s");
            said = new String(sbatch.getInputStream().readAllBytes());
        } finally {
            sbatch.destroy();
        }
        String text = said + "\n--- job output\n"
                + (Files.exists(out) ? Files.readString(out) : "(none)") + "\n" + slurm.logs();
        assertEquals(0, sbatch.exitValue(), text);
        assertTrue(text.contains("2 processes: pid 0's") && text.contains("equal the sequential ones"), text);
        assertEquals("", slurm.jobsLeft(), "squeue after the run");
    }

    /** {@code kill} (SIGTERM) of lpf run ends its srun step: no task JVM and no step is left, and salloc ends. */
    @Test
    void killingLpfRunEndsItsJob() throws Exception {
        long[] tasks = {0};
        LpfJvm r = lpf(List.of("salloc", "-n", "2"), List.of(), (proc, marker) -> tasks[0] = terminateLpfRunOnceTasksRun(marker),
                "run", "--engine", "mpi", "-p", "2", PAGERANK, "12", "8", "1000000");
        assertTrue(r.done(), r::both);
        assertTrue(tasks[0] == 2, () -> tasks[0] + " task JVMs seen\n" + r.both());
        assertTrue(r.exitCode() != 0, r::both);
        assertTrue(r.ghosts().isEmpty(), () -> "processes of the run left behind: " + r.ghosts());
        assertEquals("", slurm.jobsLeft(), "squeue after the run");
    }

    /** Waits until both task JVMs run, then sends SIGTERM to the lpf run JVM that started srun; returns the tasks seen. */
    private static long terminateLpfRunOnceTasksRun(String marker) {
        long deadline = System.nanoTime() + 120_000_000_000L;
        try {
            while (System.nanoTime() < deadline) {
                List<ProcessHandle> jvms = ProcessHandle.allProcesses()
                        .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false))
                        .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false)).toList();
                List<ProcessHandle> tasks = jvms.stream().filter(h -> h.info().commandLine().orElseThrow().contains("--launched")).toList();
                if (tasks.size() == 2) {
                    Thread.sleep(2000); // past MPI's start
                    for (ProcessHandle h : jvms) if (!tasks.contains(h)) h.destroy();
                    return tasks.size();
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("the task JVMs did not start");
    }

    /**
     * {@code kill -9} of a task: the job ends naming that rank's JVM, {@code lpf run --restarts 1}
     * runs srun again, and the retry resumes from the last complete checkpoint.
     */
    @Test
    void aKilledTaskIsNamedAndTheJobResumesFromItsCheckpoint() throws Exception {
        Path cp = dir.resolve("cp");
        long[] killed = {0};
        LpfJvm r = lpf(List.of("salloc", "-n", "3"), List.of(), (proc, marker) -> killed[0] = killATaskAfterFirstCommit(cp, proc, marker),
                "run", "--engine", "mpi", "-p", "3", "--checkpoint-dir", cp.toString(), "--checkpoint-every", "200ms",
                "--restarts", "1", PAGERANK, "12", "8", "3000");
        assertPageRank(r, 3);
        assertTrue(r.err().contains("(pid " + killed[0] + " on host ") && r.err().contains("died while the job was running"), r::both);
        assertTrue(r.out().contains("lpf run: the job failed (exit status"), r::both);
        assertTrue(r.out().contains("restart 1 of 1 from the last complete checkpoint in " + cp), r::both);
        assertTrue(r.err().contains("lpf4j cr: PageRank 12 8 3000 3 resumed from checkpoint "), r::both);
    }

    /** Waits for a committed checkpoint, then kills one task JVM of the run (slurmd's child, not lpf's) with SIGKILL. */
    private static long killATaskAfterFirstCommit(Path cp, Process lpf, String marker) {
        return RestartRunTest.signalAfterFirstCommit(cp, lpf, "-9", () -> ProcessHandle.allProcesses()
                .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .filter(h -> h.info().commandLine().map(c -> c.contains(marker) && c.contains("--launched")).orElse(false))
                .sorted(java.util.Comparator.comparingLong(ProcessHandle::pid)).toList());
    }
}
