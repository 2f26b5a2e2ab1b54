package org.lpf4j.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random kills: PageRank on the mpi engine (3 ranks) under {@code lpf run --restarts 1}; in each
 * trial a random rank gets {@code kill -9} at a random time after the job's first committed
 * checkpoint. Every run must finish and print the same digest of all ranks' bits as a run
 * without failure. {@code -Dlpf.test.killTrials=N} sets the number of trials (default 2, as
 * {@code bin/test} runs; 20 for the soak), {@code -Dlpf.test.killSeed=S} the seed (printed on failure).
 */
@Timeout(3600)
class KillTrialsTest {
    private static final Pattern DIGEST = Pattern.compile("digest of all ranks' bits ([0-9a-f]{16})");
    private static final String[] PROGRAM = {"org.lpf4j.examples.PageRank", "12", "8", "30000"};
    @TempDir Path dir;

    private static String digest(LpfJvm r) {
        Matcher m = DIGEST.matcher(r.out());
        assertTrue(m.find(), r::both);
        return m.group(1);
    }

    private static LpfJvm run(Path cp, java.util.function.Consumer<Process> during) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", "--engine", "mpi", "-p", "3", "--checkpoint-dir", cp.toString(),
                "--checkpoint-every", "150ms", "--restarts", "1"));
        args.addAll(List.of(PROGRAM));
        return LpfJvm.run(240, List.of(), Map.of(), during, args.toArray(String[]::new));
    }

    @Test
    void everyRunKilledAtARandomTimeFinishesWithTheResultOfARunWithoutFailure() throws Exception {
        Launchable.need("mpi");
        int trials = Integer.getInteger("lpf.test.killTrials", 2);
        long seed = Long.getLong("lpf.test.killSeed", System.nanoTime());
        Random random = new Random(seed);
        LpfJvm clean = run(dir.resolve("clean"), p -> {});
        assertEquals(0, clean.exitCode(), clean::both);
        String want = digest(clean);
        for (int t = 0; t < trials; t++) {
            Path cp = dir.resolve("trial-" + t);
            int victim = random.nextInt(3);
            long delayMillis = random.nextInt(1500);
            String trial = "trial " + t + " of " + trials + " (seed " + seed + ", rank " + victim + " killed " + delayMillis
                    + " ms after the first commit)";
            java.util.concurrent.atomic.AtomicBoolean killed = new java.util.concurrent.atomic.AtomicBoolean();
            LpfJvm r = run(cp, proc -> killed.set(kill(cp, proc, victim, delayMillis)));
            assertTrue(r.done(), () -> trial + ": " + r.both());
            assertEquals(0, r.exitCode(), () -> trial + ": " + r.both());
            assertTrue(killed.get(), () -> trial + ": the job ended before the kill: " + r.both());
            assertTrue(r.out().contains("restart 1 of 1"), () -> trial + ": no restart: " + r.both());
            assertEquals(want, digest(r), () -> trial + ": the result differs from a run without failure: " + r.both());
            assertTrue(r.ghosts().isEmpty(), () -> trial + ": processes left behind: " + r.ghosts());
        }
    }

    /**
     * Kills the {@code victim}-th of the job's JVMs (by OS pid order) {@code delayMillis} after the
     * first commit; false if the job had already ended.
     */
    private static boolean kill(Path cp, Process lpf, int victim, long delayMillis) {
        try {
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (System.nanoTime() < deadline && lpf.isAlive()) {
                boolean committed;
                try (Stream<Path> s = Files.exists(cp) ? Files.list(cp) : Stream.empty()) {
                    committed = s.anyMatch(d -> Files.exists(d.resolve("COMMITTED")));
                }
                if (committed) break;
                Thread.sleep(20);
            }
            Thread.sleep(delayMillis);
            List<ProcessHandle> ranks = lpf.descendants().filter(RestartRunTest::isRankJvm)
                    .sorted(java.util.Comparator.comparingLong(ProcessHandle::pid)).toList();
            if (ranks.size() != 3) return false;
            return new ProcessBuilder("kill", "-9", Long.toString(ranks.get(victim).pid())).start().waitFor() == 0;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
