package org.lpf4j.cr;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Parameters;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Checkpoints on the threads engine with each module: what survives, what is refused, what is skipped. */
class CheckpointsTest {
    private static final String[] KEYS = {"lpf.cr", "lpf.cr.files.dir", "lpf.cr.files.every", "lpf.cr.files.keep",
            "lpf.cr.files.resume", "lpf.cr.memory.every", "lpf.cr.memory.keep"};
    @TempDir Path dir;
    /** Where each {@link RingJob} keeps its ledger: apart from {@link #dir}, which some tests list. */
    @TempDir Path ledgers;

    @BeforeEach
    void install() { Components.installed(); }

    @AfterEach
    void clear() { for (String k : KEYS) Parameters.clear(k); }

    private void files() {
        Parameters.set("lpf.cr", "files");
        Parameters.set("lpf.cr.files.dir", dir.toString());
    }

    /** @return 1, 2, 3, 4, 5, 8, or the process counts {@code lpf.test.procs} lists (a machine of fewer slots) */
    static IntStream procs() {
        String listed = System.getProperty("lpf.test.procs", "").strip();
        return listed.isEmpty() ? IntStream.of(1, 2, 3, 4, 5, 8) : Arrays.stream(listed.split("\\s*,\\s*")).mapToInt(Integer::parseInt);
    }

    private static List<String> run(RingJob job, int p, int restarts) {
        List<String> report = new ArrayList<>();
        Restarts.exec(Lpf.root(), p, job, Args.NONE, restarts, false, report::add);
        return report;
    }

    /** A checkpoint is committed at a checkpoint point after its parts were written: some time after it was taken. */
    private static void assertRestoredBefore(RingJob job, int failAt) {
        int at = job.restoredAt();
        assertTrue(at > 0 && at % job.every == 0 && at <= failAt, "resumed from step " + at + ": want a checkpoint step"
                + " (a multiple of " + job.every + ") before the failure at " + failAt);
    }

    private static void assertResult(RingJob job, int p) {
        long[][] want = RingJob.expected(p, job.n, job.steps);
        for (int q = 0; q < p; q++) assertArrayEquals(want[q], job.results()[q], "pid " + q);
        assertArrayEquals(RingJob.expectedSums(p, job.n, job.steps), job.sums(), "the value the loop body updates");
    }

    private List<Long> committed() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(d -> Files.exists(d.resolve(FilesStore.COMMITTED)))
                    .map(d -> Long.parseLong(d.getFileName().toString().substring(3))).sorted().toList();
        }
    }

    @ParameterizedTest
    @MethodSource("procs")
    void filesModuleResumesAfterAProcessThrowsWithTheSameResult(int p) {
        files();
        RingJob job = new RingJob(ledgers, p, 5, 40, 5, p - 1, 23);
        job.pauseMillis = 2;
        List<String> report = run(job, p, 1);
        assertEquals(2, job.runs(), "one failed run, one restart");
        assertEquals(1, report.size(), report.toString());
        assertTrue(report.get(0).contains("injected failure") && report.get(0).contains("restart 1 of 1"), report.get(0));
        assertRestoredBefore(job, 23);
        assertResult(job, p);
    }

    @ParameterizedTest
    @MethodSource("procs")
    void memoryModuleRollsBackInThisJvm(int p) {
        Parameters.set("lpf.cr", "memory");
        RingJob job = new RingJob(ledgers, p, 3, 30, 4, 0, 17);
        job.pauseMillis = 2;
        run(job, p, 2);
        assertEquals(2, job.runs());
        assertRestoredBefore(job, 17);
        assertResult(job, p);
        assertEquals(0, Attempt.keptShelves(), "nothing kept in memory outside Restarts");
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(0, s.count(), "the memory module writes no file");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The loop of the documentation: the checkpoint point ends iteration t and records t + 1 with
     * the state after t, so a retry resumes with the iteration after the checkpoint's last (the
     * result is the failure-free one, value included) and says how many iterations it redoes:
     * the failed run had reached iteration 17 (its pid 1 threw at the top of it).
     */
    @ParameterizedTest
    @ValueSource(strings = {"files", "memory"})
    void aRetryResumesAtTheNextIterationAndCountsTheIterationsItRedoes(String module) {
        if (module.equals("files")) files(); else Parameters.set("lpf.cr", "memory");
        RingJob job = new RingJob(ledgers, 3, 3, 30, 4, 1, 17);
        job.pauseMillis = 2;
        Restarts.Outcome outcome = Restarts.exec(Lpf.root(), 3, job, Args.NONE, 1, false, line -> {});
        assertEquals(1, outcome.restarts());
        assertResult(job, 3);
        assertEquals(1, outcome.resumptions().size(), outcome.resumptions().toString());
        Restarts.Resumption r = outcome.resumptions().get(0);
        assertEquals(job.restoredAt(), r.iteration(), "the iteration the program read after resume()");
        assertTrue(r.iteration() > 0 && r.iteration() % 4 == 0 && r.iteration() <= 16, r.toString());
        // pid 0 reached iteration 17, or 16 when its last checkpoint point failed as a follow-on of
        // pid 1's throw (a sync may fail after the others left it on the threads engine).
        long redone = r.redone();
        assertTrue(redone == 17 - r.iteration() || redone == 16 - r.iteration(), r.toString());
        assertEquals("restart 1 resumed from checkpoint " + r.checkpoint() + " at iteration " + r.iteration() + ", "
                + redone + (redone == 1 ? " iteration" : " iterations") + " redone", outcome.describeResumptions());
    }

    @Test
    void aRetryWithoutACheckpointSaysItStartsFromTheBeginningAndRedoesEverything() {
        Parameters.set("lpf.cr", "memory");
        RingJob job = new RingJob(ledgers, 2, 2, 10, 0, 0, 6); // no checkpoint asked for: the retry starts over
        Restarts.Outcome outcome = Restarts.exec(Lpf.root(), 2, job, Args.NONE, 1, false, line -> {});
        assertResult(job, 2);
        assertEquals(List.of(new Restarts.Resumption(1, 0, 0, 6)), outcome.resumptions());
        assertEquals("restart 1 started from the beginning, 6 iterations redone", outcome.describeResumptions());
    }

    /** The old loop advanced a counter of its own after the checkpoint point: a restart repeated an iteration. */
    @Test
    @SuppressWarnings("removal")
    void theOldCounterFailsAtOnceSayingHowToWriteTheLoop() {
        FatalException e = assertThrows(FatalException.class, () -> Lpf.root().exec(2,
                WithCheckpoints.spmd("old", (ctx, cr) -> cr.counter("step", 0))));
        assertTrue(causes(e).contains("Checkpoints.counter(\"step\", 0)")
                && causes(e).contains("for (long t = cr.iteration(); t < steps; t = cr.checkpoint())"), causes(e));
    }

    @Test
    void theIterationReadBeforeResumeIsRefusedAtOnce() {
        FatalException e = assertThrows(FatalException.class, () -> Lpf.root().exec(2,
                WithCheckpoints.spmd("early", (ctx, cr) -> {
                    long t = cr.iteration();
                    cr.resume();
                    if (t != 0) throw new AssertionError(t);
                })));
        assertTrue(causes(e).contains("cr.iteration() was read before resume()"), causes(e));
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "files"})
    void everyCheckpointPointAdvancesTheIterationFlushDoesNot(String module) {
        if (module.equals("files")) files();
        Lpf.root().exec(3, WithCheckpoints.spmd("count", (ctx, cr) -> {
            cr.resume();
            if (cr.iteration() != 0) throw new AssertionError("starts at " + cr.iteration());
            long t = cr.checkpoint();
            if (t != 1 || cr.iteration() != 1) throw new AssertionError("after one point: " + t);
            t = cr.checkpointNow();
            if (t != 2 || cr.iteration() != 2) throw new AssertionError("after two points: " + t);
            cr.flush();
            if (cr.iteration() != 2) throw new AssertionError("flush advanced it to " + cr.iteration());
        }));
    }

    @Test
    void noneIsTheDefaultAndFilesIsChosenOnceItsDirectoryIsSet() {
        String[] chosen = new String[2];
        java.util.function.IntConsumer pick = i -> {
            // Process 0 names the module in its output, which reaches the caller wherever process 0 ran.
            MemorySegment out = Arena.ofAuto().allocate(16);
            Lpf.root().exec(1, WithCheckpoints.spmd("which", (ctx, cr) -> {
                ctx.args().output().setString(0, cr.module());
                cr.checkpointNow();
                boolean took = cr.tookCheckpoint();
                if (took != cr.module().equals("files")) throw new AssertionError(cr.module() + " took a checkpoint: " + took);
            }), Args.of(MemorySegment.NULL, out));
            chosen[i] = out.getString(0);
        };
        pick.accept(0);
        Parameters.set("lpf.cr.files.dir", dir.toString());
        pick.accept(1);
        assertEquals("none", chosen[0], "no module asked for: none");
        assertEquals("files", chosen[1], "a directory set selects files (priority 20)");
    }

    @Test
    void outsideRestartsTheMemoryModuleKeepsNothingAfterTheSection() {
        Parameters.set("lpf.cr", "memory");
        RingJob job = new RingJob(ledgers, 2, 3, 20, 4, -1, -1);
        Lpf.root().exec(2, job);
        assertResult(job, 2);
        assertEquals(0, Attempt.keptShelves(), "a job's memory checkpoints are dropped when it closes them");
    }

    @Test
    void aRetryRestoresOnlyItsOwnRunsCheckpointsAndAnExplicitResumeAnyRuns() {
        files();
        RingJob earlier = new RingJob(ledgers, 2, 3, 20, 5, -1, -1);
        earlier.pauseMillis = 2;
        run(earlier, 2, 0);
        // This run fails at step 2, before its first checkpoint: its retry must not take the earlier run's.
        RingJob failsEarly = new RingJob(ledgers, 2, 3, 20, 5, 1, 2);
        List<String> report = run(failsEarly, 2, 1);
        assertEquals(1, report.size(), report.toString());
        assertEquals(-1, failsEarly.restoredAt(), "the retry started from the beginning");
        assertResult(failsEarly, 2);
        RingJob explicit = new RingJob(ledgers, 2, 3, 20, 5, -1, -1);
        Restarts.exec(Lpf.root(), 2, explicit, Args.NONE, 0, true, s -> {});
        assertTrue(explicit.restoredAt() > 0, "an explicit resume takes the newest of any run");
        assertResult(explicit, 2);
    }

    @Test
    void noneModuleTakesNothingAndAFailureIsFinal() {
        RingJob job = new RingJob(ledgers, 3, 2, 10, 2, 1, 4);
        FatalException e = assertThrows(FatalException.class, () -> run(job, 3, 0));
        assertTrue(String.valueOf(e.getMessage()).contains("injected failure")
                || String.valueOf(e.getCause()).contains("injected failure"), e.toString());
        RingJob again = new RingJob(ledgers, 3, 2, 10, 2, -1, -1);
        run(again, 3, 0);
        assertEquals(-1, again.restoredAt());
        assertResult(again, 3);
    }

    @Test
    void withoutFailureTheResultIsTheSameAndOnlyKeepCheckpointsRemain() throws IOException {
        files();
        Parameters.set("lpf.cr.files.keep", "3");
        RingJob job = new RingJob(ledgers, 4, 4, 50, 5, -1, -1);
        run(job, 4, 0);
        assertResult(job, 4);
        // Checkpoints 1..10 were taken; the last ones are committed when their writes are reported; 3 kept.
        List<Long> c = committed();
        assertEquals(3, c.size(), c.toString());
        assertEquals(List.of(c.get(0), c.get(0) + 1, c.get(0) + 2), c);
        assertTrue(c.get(2) >= 8, c.toString());
        for (long s : committed()) {
            for (int q = 0; q < 4; q++) assertTrue(Files.exists(dir.resolve(String.format("cp-%010d/part-%d.lpfcp", s, q))));
        }
    }

    @Test
    void aDamagedPartIsSkippedForTheCheckpointBefore() throws IOException {
        files();
        Parameters.set("lpf.cr.files.keep", "5");
        RingJob first = new RingJob(ledgers, 3, 4, 30, 5, -1, -1);
        first.pauseMillis = 2;
        run(first, 3, 0);
        List<Long> c = committed();
        long newest = c.get(c.size() - 1);
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve(String.format("cp-%010d/part-1.lpfcp", newest)).toFile(), "rw")) {
            f.seek(f.length() - 20);
            f.write(0x5A);
        }
        Parameters.set("lpf.cr.files.resume", "true");
        RingJob again = new RingJob(ledgers, 3, 4, 30, 5, -1, -1);
        run(again, 3, 0);
        assertEquals(5 * (newest - 1), again.restoredAt(), "the checkpoint before the damaged one");
        assertResult(again, 3);
    }

    @Test
    void aTruncatedPartAndAnIncompleteCheckpointAreSkipped() throws IOException {
        files();
        Parameters.set("lpf.cr.files.keep", "5");
        RingJob first = new RingJob(ledgers, 2, 4, 30, 5, -1, -1);
        first.pauseMillis = 2;
        run(first, 2, 0);
        List<Long> c = committed();
        long newest = c.get(c.size() - 1);
        // The newest loses its commit mark (as if the job died before committing it), the one before is truncated.
        Files.delete(dir.resolve(String.format("cp-%010d/COMMITTED", newest)));
        Path truncated = dir.resolve(String.format("cp-%010d/part-0.lpfcp", newest - 1));
        byte[] bytes = Files.readAllBytes(truncated);
        Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        Parameters.set("lpf.cr.files.resume", "true");
        RingJob again = new RingJob(ledgers, 2, 4, 30, 5, -1, -1);
        run(again, 2, 0);
        assertEquals(5 * (newest - 2), again.restoredAt());
        assertResult(again, 2);
    }

    @Test
    void aCheckpointOfAnotherPOrProgramOrDeclarationIsRefusedNamingTheDifference() {
        files();
        RingJob first = new RingJob(ledgers, 3, 4, 12, 5, -1, -1);
        first.pauseMillis = 3;
        run(first, 3, 0);
        Parameters.set("lpf.cr.files.resume", "true");
        FatalException otherP = assertThrows(FatalException.class, () -> run(new RingJob(ledgers, 2, 4, 12, 5, -1, -1), 2, 0));
        assertTrue(causes(otherP).contains("p = 3 (this run: 2)"), causes(otherP));
        FatalException otherProgram = assertThrows(FatalException.class, () -> run(new RingJob(ledgers, 3, 4, 13, 5, -1, -1), 3, 0));
        assertTrue(causes(otherProgram).contains("program 'ring 4 12' (this run: 'ring 4 13')"), causes(otherProgram));
    }

    @Test
    void aCheckpointOfAnotherLpf4jVersionIsRefusedNamingBoth() throws IOException {
        files();
        RingJob first = new RingJob(ledgers, 2, 4, 12, 5, -1, -1);
        first.pauseMillis = 3;
        run(first, 2, 0);
        long newest = committed().getLast();
        Path mark = dir.resolve(String.format("cp-%010d/COMMITTED", newest));
        Files.writeString(mark, Files.readString(mark).replace("lpf4j=" + PartFormat.LPF4J_VERSION, "lpf4j=0.0.9"));
        Parameters.set("lpf.cr.files.resume", "true");
        FatalException e = assertThrows(FatalException.class, () -> run(new RingJob(ledgers, 2, 4, 12, 5, -1, -1), 2, 0));
        assertTrue(causes(e).contains("lpf4j 0.0.9 (this run: " + PartFormat.LPF4J_VERSION + ")"), causes(e));
    }

    @Test
    void aSegmentOfAnotherSizeIsRefusedNamingIt() {
        files();
        Parameters.set("lpf.cr.files.resume", "true");
        // Same program name, other state size: the declarations differ.
        Restarts.exec(Lpf.root(), 2, WithCheckpoints.spmd("sized", (ctx, cr) -> {
            cr.protect("a", java.lang.foreign.MemorySegment.ofArray(new long[4]));
            cr.resume();
            cr.checkpointNow();
            for (int i = 0; i < 30; i++) {
                Thread.sleep(2);
                cr.checkpoint();
            }
        }), Args.NONE, 0, false, s -> {});
        FatalException e = assertThrows(FatalException.class, () -> Restarts.exec(Lpf.root(), 2, WithCheckpoints.spmd("sized", (ctx, cr) -> {
            cr.protect("a", java.lang.foreign.MemorySegment.ofArray(new long[5]));
            cr.resume();
        }), Args.NONE, 0, false, s -> {}));
        assertTrue(causes(e).contains("segment 'a' has 32 bytes (this run: 40)"), causes(e));
    }

    @Test
    void aDirectoryThatIsAFileIsAClearError() throws IOException {
        Path file = Files.writeString(dir.resolve("plain"), "x");
        Parameters.set("lpf.cr", "files");
        Parameters.set("lpf.cr.files.dir", file.toString());
        FatalException e = assertThrows(FatalException.class, () -> run(new RingJob(ledgers, 2, 1, 2, 0, -1, -1), 2, 0));
        assertTrue(causes(e).contains("lpf.cr.files.dir") && causes(e).contains(file.toString()), causes(e));
    }

    @Test
    void aFailedWriteIsReportedAndNeverCommittedAndTheJobGoesOn() throws IOException {
        files();
        Parameters.set("lpf.cr.files.keep", "10");
        // Checkpoint 2's directory cannot be created: a plain file is in its place.
        Files.writeString(dir.resolve("cp-0000000002"), "in the way");
        // Eight checkpoints, 25 ms of computing apart: a later one commits even when writes are slow (a loaded machine
        // delayed checkpoint 3's commit past the end of a shorter job).
        RingJob job = new RingJob(ledgers, 2, 2, 40, 5, -1, -1);
        job.pauseMillis = 5;
        run(job, 2, 0);
        assertResult(job, 2);
        List<Long> c = committed();
        assertFalse(c.contains(2L), c.toString());
        assertTrue(c.contains(1L) && c.stream().anyMatch(n -> n > 2), "the job went on checkpointing after the failed write: " + c);
    }

    @Test
    void theIntervalAndAnOutsideRequestTriggerCheckpoints() throws Exception {
        files();
        Parameters.set("lpf.cr.files.every", "40ms");
        Parameters.set("lpf.cr.files.keep", "1000");
        Lpf.root().exec(2, WithCheckpoints.spmd("interval", (ctx, cr) -> {
            cr.protect("x", java.lang.foreign.MemorySegment.ofArray(new long[1]));
            cr.resume();
            int taken = 0;
            long t0 = System.nanoTime();
            for (int i = 0; i < 60; i++) { // the same number of points on every process
                Thread.sleep(5);
                cr.checkpoint();
                if (cr.tookCheckpoint()) taken++;
            }
            long elapsedMillis = (System.nanoTime() - t0) / 1_000_000;
            if (taken < 3 || taken > elapsedMillis / 40 + 1) {
                throw new AssertionError("a 40 ms interval over " + elapsedMillis + " ms took " + taken);
            }
        }));
        Parameters.set("lpf.cr.files.every", "0");
        MemorySegment taken = Arena.ofAuto().allocate(8); // process 0's count, in its output
        String request = dir.resolve(FilesStore.REQUEST_FILE).toString(); // a path the function can carry to another JVM
        Lpf.root().exec(2, WithCheckpoints.spmd("outside", (ctx, cr) -> {
            cr.protect("x", java.lang.foreign.MemorySegment.ofArray(new long[1]));
            cr.resume();
            int took = 0;
            for (int i = 0; i < 20; i++) {
                Thread.sleep(10);
                cr.checkpoint();
                if (cr.tookCheckpoint()) took++;
            }
            if (ctx.pid() == 0) Files.writeString(Path.of(request), "");
            boolean got = false;
            for (int i = 0; !got && i < 500; i++) { // the decision is process 0's: all leave together
                Thread.sleep(10);
                cr.checkpoint();
                got = cr.tookCheckpoint();
            }
            if (got) took++;
            if (ctx.pid() == 0) ctx.args().output().set(ValueLayout.JAVA_LONG, 0, took);
        }), Args.of(MemorySegment.NULL, taken));
        assertEquals(1, taken.get(ValueLayout.JAVA_LONG, 0), "no checkpoint without a request, one after it");
        assertFalse(Files.exists(dir.resolve(FilesStore.REQUEST_FILE)), "the request is consumed");
    }

    @Test
    void aFullRegisterNamesCheckpointsInitAndWhatItNeeds() {
        FatalException e = assertThrows(FatalException.class, () -> Lpf.root().exec(2, ctx -> {
            Checkpoints.init(ctx, "tight").close();
        }));
        assertTrue(causes(e).contains("Checkpoints.init needs 1 free register slot"), causes(e));
    }

    @Test
    void badDurationsAreRefusedNamingTheKey() {
        assertEquals(30_000_000_000L, CrSettings.parseDuration("k", "30s"));
        assertEquals(1_500_000L, CrSettings.parseDuration("k", "1.5ms"));
        assertEquals(120_000_000_000L, CrSettings.parseDuration("k", "2m"));
        assertEquals(0, CrSettings.parseDuration("k", "off"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CrSettings.parseDuration("lpf.cr.files.every", "10 parsecs"));
        assertTrue(e.getMessage().startsWith("lpf.cr.files.every=10 parsecs: not a duration"), e.getMessage());
    }

    /** @return every cause and suppressed exception of {@code t}, as text */
    static String causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c).append(" | ");
            for (Throwable s : c.getSuppressed()) b.append(s).append(" | ");
        }
        return b.toString();
    }
}
