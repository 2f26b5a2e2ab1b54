package org.lpf4j.tools;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
        List<String> args = new ArrayList<>(List.of("run", "--engine", engine));
        args.addAll(List.of(layout.split(" ")));
        args.addAll(List.of("--checkpoint-dir", dir.toString(), "--checkpoint-every", "150ms", "--restarts", "2",
                "--class-path", classes.toString(), "RingSum", STEPS));
        return LpfJvm.run(240, List.of(), Map.of(), during, args.toArray(String[]::new));
    }

    private static String faultFree;

    /**
     * The answer of a run without a fault, the same on every engine: taken once, on the threads
     * engine (4 processes in one JVM, with the same checkpoint options), for every engine's trial.
     */
    private static synchronized String faultFreeResult() throws Exception {
        if (faultFree == null) {
            LpfJvm clean = run("threads", "-p 4", work.resolve("threads-clean"), proc -> {});
            assertEquals(0, clean.exitCode(), clean::both);
            faultFree = result(clean);
        }
        return faultFree;
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
        String want = faultFreeResult();
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

    /** Kills the {@code victim}-th of the job's {@code jvms} JVMs {@code delayMillis} after the first commit; false if the job had ended. */
    private static boolean kill(Path dir, Process lpf, int jvms, int victim, long delayMillis) {
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
            List<ProcessHandle> ranks = lpf.descendants().filter(RestartRunTest::isRankJvm)
                    .sorted(Comparator.comparingLong(ProcessHandle::pid)).toList();
            if (ranks.size() != jvms) return false;
            return new ProcessBuilder("kill", "-9", Long.toString(ranks.get(victim).pid())).start().waitFor() == 0;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
