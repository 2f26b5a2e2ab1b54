package org.lpf4j.tools;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lpf4j.testkit.MeshPaths;
import org.lpf4j.testkit.Needs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checkpointed program of docs/checkpoint.md ("Jobs that survive a lost process"), as written: its Java
 * block is compiled apart by javac and run with {@code lpf run --class-path} under
 * {@code --restarts 2} on the net engine (4 JVMs) and the hybrid engine over it (2 nodes x 2
 * threads), the engines between JVMs that need no MPI (a killed rank under the mpi and hybrid-over-MPI
 * engines, restarted from a checkpoint: {@link RestartRunTest});
 * a random rank JVM gets {@code kill -9} at a random time after the first committed checkpoint.
 * The restarted job must print, bit for bit, what a run without a fault prints (its segment and
 * the value its loop body updates; taken once, on the threads engine), and say where it resumed
 * and how many iterations it redid.
 * {@code -Dlpf.test.killSeed=S} repeats a trial (the seed is in every failure message).
 */
@Timeout(600)
class ReadmeCheckpointLoopTest {
    private static final Pattern RESULT = Pattern.compile("x = -?\\d+, received = -?\\d+");
    private static final Pattern SUMMARY = Pattern.compile(
            "lpf run: RingSum on the \\w+ engine: .*restart 1 (resumed from checkpoint \\d+ at iteration \\d+"
                    + "|started from the beginning), \\d+ iterations? redone");
    private static final String STEPS = "120000";
    /** Iterations on the emulated hosts, where a superstep crosses a bridge and takes about 0.5 ms (not 5 µs). */
    private static final String EMULATED_STEPS = "8000";
    @TempDir static Path work;
    private static Path classes;

    @BeforeAll
    static void compileTheReadmeProgram() throws Exception {
        String readme = Files.readString(Path.of("..", "docs", "checkpoint.md"));
        int section = readme.indexOf("## Jobs that survive a lost process");
        assertTrue(section >= 0, "docs/checkpoint.md has the section 'Jobs that survive a lost process'");
        Matcher m = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(m.find(section), "the section has a ```java block");
        String source = m.group(1);
        assertTrue(source.contains("public class RingSum"), source);
        Path sources = Files.createDirectories(work.resolve("src"));
        classes = Files.createDirectories(work.resolve("classes"));
        Path file = Files.writeString(sources.resolve("RingSum.java"), source);
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process javac = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
                "-Xlint:all,-serial", "-d", classes.toString(), "-cp", cp, file.toString()).redirectErrorStream(true).start();
        try {
            assertTrue(javac.waitFor(120, TimeUnit.SECONDS), "javac did not finish in 120 s");
            String diagnostics = new String(javac.getInputStream().readAllBytes());
            assertEquals(0, javac.exitValue(), diagnostics);
            assertTrue(diagnostics.isBlank(), "the guide's program compiles without a warning: " + diagnostics);
        } finally {
            javac.destroyForcibly();
        }
    }

    private static LpfJvm run(String engine, String layout, Path dir, java.util.function.Consumer<Process> during)
            throws Exception {
        List<String> placement = new ArrayList<>(List.of("--engine", engine));
        placement.addAll(List.of(layout.split(" ")));
        return LpfJvm.run(240, List.of(), Map.of(), during, loopArgs(placement, dir, List.of("--restarts", "2"), STEPS));
    }

    /** {@code lpf run} of the guide's program for {@code steps} iterations, checkpointing into {@code dir}. */
    private static String[] loopArgs(List<String> placement, Path dir, List<String> restart, String steps) {
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(placement);
        args.addAll(List.of("--checkpoint-dir", dir.toString(), "--checkpoint-every", "150ms"));
        args.addAll(restart);
        args.addAll(List.of("--class-path", classes.toString(), "RingSum", steps));
        return args.toArray(String[]::new);
    }

    private static final Map<String, String> faultFree = new java.util.HashMap<>();

    /**
     * The answer of a run of {@code steps} iterations without a fault, the same on every engine:
     * taken once per count, on the threads engine (4 processes in one JVM, with the same
     * checkpoint options), for every engine's trial.
     */
    private static synchronized String faultFreeResult(String steps) throws Exception {
        String known = faultFree.get(steps);
        if (known != null) return known;
        LpfJvm clean = LpfJvm.run(240, List.of(), Map.of(), proc -> {}, loopArgs(List.of("--engine", "threads", "-p", "4"),
                work.resolve("threads-clean-" + steps), List.of(), steps));
        assertEquals(0, clean.exitCode(), clean::both);
        String answer = result(clean);
        faultFree.put(steps, answer);
        return answer;
    }

    private static String result(LpfJvm r) {
        Matcher m = RESULT.matcher(r.out());
        assertTrue(m.find(), r::both);
        return m.group();
    }

    @ParameterizedTest(name = "{0} engine, {1}")
    @CsvSource({"net, -p 4", "hybrid, --param lpf.engine.hybrid.over=net --nodes 2 -p 4"})
    void theReadmeLoopRestartsIntoTheAnswerOfARunWithoutAFault(String engine, String layout) throws Exception {
        if (!layout.contains("over=net")) {
            Launchable.need(engine);
        }
        String want = faultFreeResult(STEPS);
        long seed = Long.getLong("lpf.test.killSeed", System.nanoTime());
        Random random = new Random(seed);
        int jvms = engine.equals("hybrid") ? 2 : 4;
        int victim = random.nextInt(jvms);
        long delayMillis = random.nextInt(800);
        String trial = engine + " (seed " + seed + ": JVM " + victim + " of " + jvms + " killed " + delayMillis
                + " ms after the first commit)";
        Path dir = work.resolve(engine + (layout.contains("over=net") ? "-over-net" : "") + "-killed");
        AtomicBoolean killed = new AtomicBoolean();
        LpfJvm r = run(engine, layout, dir, proc -> killed.set(kill(dir, proc, jvms, victim, delayMillis)));
        assertTrue(r.done(), () -> trial + ": " + r.both());
        assertTrue(killed.get(), () -> trial + ": the job ended before the kill: " + r.both());
        assertEquals(0, r.exitCode(), () -> trial + ": " + r.both());
        assertTrue(r.out().contains("restart 1 of 2"), () -> trial + ": no restart: " + r.both());
        assertEquals(want, result(r), () -> trial + ": the result differs from a run without a fault: " + r.both());
        assertTrue(r.err().contains("lpf4j cr: RingSum " + STEPS + " resumed from checkpoint ")
                || r.err().contains("lpf4j cr: starting RingSum " + STEPS + " from the beginning"), () -> trial + ": " + r.both());
        assertTrue(SUMMARY.matcher(r.out()).find(), () -> trial + ": the summary line says where it resumed: " + r.both());
        assertTrue(r.ghosts().isEmpty(), () -> trial + ": processes left behind: " + r.ghosts());
    }

    /**
     * Issue 42's mixed placement: the guide's loop on two emulated hosts of two JVMs each
     * ({@code bin/emulated-hosts}: network namespaces on a bridge, docs/scale.md), every JVM an
     * {@code lpf run} of its own booted by the tcp boot, as a batch system starts a job across
     * hosts: the JVMs of a host reach each other through shared memory, the hosts through TCP (each
     * rank's paths are checked). A random JVM gets {@code kill -9} after the first commit: the job
     * fails, leaving no JVM behind. {@code lpf run --resume} on the same hosts, as a user or a
     * requeue starts the job again (JVMs started by hand cannot be restarted by one of them), must
     * print what a run without a fault prints and say where it resumed. Neither run leaves anything
     * of lpf4j in {@code /dev/shm}. Under {@code CI=true} a machine without root or iproute2 fails.
     */
    @Test
    void onTwoEmulatedHostsOfTwoJvmsTheLoopResumesIntoTheAnswerOfARunWithoutAFault() throws Exception {
        Needs.that("root".equals(System.getProperty("user.name")),
                () -> "the emulated hosts need root to create network namespaces; user is " + System.getProperty("user.name"));
        Path script = Path.of("..", "bin", "emulated-hosts").toAbsolutePath().normalize();
        assertTrue(Files.isExecutable(script), script + " is missing");
        long seed = Long.getLong("lpf.test.killSeed", System.nanoTime());
        Random random = new Random(seed);
        int hosts = 2, perHost = 2, jvms = hosts * perHost, victim = random.nextInt(jvms);
        long delayMillis = random.nextInt(800);
        List<String> onHosts = List.of(script.toString(), "--hosts", Integer.toString(hosts), "--per-host",
                Integer.toString(perHost), "--delay", "0", "--timeout", "200", "--");
        List<String> options = List.of(MeshPaths.OPTION, "-Xmx256m");
        Set<String> shmBefore = NetRunTest.shmEntries();
        // A machine quicker than this one may end the loop before the kill: then again with four times the iterations.
        String steps = EMULATED_STEPS, trial;
        Path dir;
        for (int attempt = 1; ; attempt++) {
            trial = "two emulated hosts of two JVMs, " + steps + " iterations (seed " + seed + ": rank " + victim + "'s JVM of "
                    + jvms + " killed " + delayMillis + " ms after the first commit)";
            dir = work.resolve("emulated-hosts-killed-" + steps);
            Path cp = dir;
            AtomicBoolean killed = new AtomicBoolean();
            LpfJvm failed = LpfJvm.run(230, onHosts, options, Map.of(), (proc, marker) -> killed.set(kill(cp, proc,
                    () -> ProcessHandle.allProcesses().filter(h -> isJvmOf(h, marker)).sorted(Comparator.comparingInt(
                            ReadmeCheckpointLoopTest::bootRank)).toList(), jvms, victim, delayMillis)),
                    loopArgs(List.of(), dir, List.of(), steps));
            String t = trial;
            assertTrue(failed.done(), () -> t + ": " + failed.both());
            assertTrue(failed.ghosts().isEmpty(), () -> t + ": processes left behind: " + failed.ghosts());
            NetRunTest.assertNothingLeftInDevShm(shmBefore, failed);
            if (!killed.get() && failed.exitCode() == 0) {
                assertTrue(attempt < 3, () -> t + ": the job ended before the kill three times: " + failed.both());
                steps = Long.toString(4 * Long.parseLong(steps));
                continue;
            }
            assertTrue(killed.get(), () -> t + ": the job ended before the kill: " + failed.both());
            assertTrue(failed.exitCode() != 0, () -> t + ": the job with a killed JVM succeeded: " + failed.both());
            assertTrue(Pattern.compile("connection to pid " + victim + " broke|pid " + victim + "'s JVM closed").matcher(failed.err()).find(),
                    () -> t + ": the other JVMs name the killed one: " + failed.both());
            break;
        }
        String want = faultFreeResult(steps), t = trial;
        LpfJvm resumed = LpfJvm.run(230, onHosts, options, Map.of(), (proc, marker) -> {},
                loopArgs(List.of(), dir, List.of("--resume"), steps));
        assertTrue(resumed.done(), () -> t + ", the resumed run: " + resumed.both());
        assertEquals(0, resumed.exitCode(), () -> t + ", the resumed run: " + resumed.both());
        assertEquals(want, result(resumed), () -> t + ": the resumed result differs from a run without a fault: " + resumed.both());
        assertTrue(resumed.err().contains("lpf4j cr: RingSum " + steps + " resumed from checkpoint "),
                () -> t + ": the resumed run says where it resumed: " + resumed.both());
        assertTrue(resumed.ghosts().isEmpty(), () -> t + ", the resumed run: processes left behind: " + resumed.ghosts());
        NetRunTest.assertNothingLeftInDevShm(shmBefore, resumed);
        Map<Integer, MeshPaths.Ranks> paths = MeshPaths.read(resumed.err(), jvms);
        assertEquals(List.of(0, 1, 2, 3), new ArrayList<>(paths.keySet()), () -> "a line of paths from every rank: " + resumed.both());
        for (MeshPaths.Ranks line : paths.values()) {
            assertEquals(MeshPaths.byPlacement(line.rank(), jvms, 1, perHost), line.peers(),
                    () -> "rank " + line.rank() + ": the JVM of its host through shared memory, the other host's through TCP: " + line.text());
        }
    }

    /** A JVM of the run marked {@code marker} (the script's own shell carries the marker in its arguments too). */
    private static boolean isJvmOf(ProcessHandle h, String marker) {
        return h.info().command().map(c -> c.endsWith("/java")).orElse(false)
                && h.info().commandLine().map(c -> c.contains(marker)).orElse(false);
    }

    /** The rank the tcp boot gives a JVM that {@code bin/emulated-hosts} started ({@code LPF_BOOT_TCP_RANK} in its environment). */
    private static int bootRank(ProcessHandle jvm) {
        try {
            for (String v : Files.readString(Path.of("/proc", Long.toString(jvm.pid()), "environ")).split("\0")) {
                if (v.startsWith("LPF_BOOT_TCP_RANK=")) return Integer.parseInt(v.substring(v.indexOf('=') + 1));
            }
            throw new AssertionError("JVM " + jvm.pid() + " has no LPF_BOOT_TCP_RANK");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Kills the {@code victim}-th by pid of the job's {@code jvms} JVMs {@code delayMillis} after the first commit; false if the job had ended. */
    private static boolean kill(Path dir, Process lpf, int jvms, int victim, long delayMillis) {
        return kill(dir, lpf, () -> lpf.descendants().filter(RestartRunTest::isRankJvm).sorted(Comparator.comparingLong(ProcessHandle::pid))
                .toList(), jvms, victim, delayMillis);
    }

    /** Kills {@code jobJvms}' {@code victim}-th {@code delayMillis} after the first commit; false if the job had ended. */
    private static boolean kill(Path dir, Process lpf, java.util.function.Supplier<List<ProcessHandle>> jobJvms, int jvms,
                                int victim, long delayMillis) {
        try {
            long deadline = System.nanoTime() + 120_000_000_000L;
            boolean committed = false;
            while (!committed && System.nanoTime() < deadline && lpf.isAlive()) {
                try (Stream<Path> s = Files.exists(dir) ? Files.list(dir) : Stream.empty()) {
                    committed = s.anyMatch(d -> Files.exists(d.resolve("COMMITTED")));
                }
                if (!committed) Thread.sleep(20);
            }
            if (!committed) return false;
            Thread.sleep(delayMillis);
            List<ProcessHandle> ranks = jobJvms.get();
            if (ranks.size() != jvms) return false;
            return new ProcessBuilder("kill", "-9", Long.toString(ranks.get(victim).pid())).start().waitFor() == 0;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
