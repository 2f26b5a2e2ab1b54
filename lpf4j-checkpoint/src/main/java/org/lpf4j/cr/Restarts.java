package org.lpf4j.cr;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Runs an SPMD section again after it failed, so that its {@link Checkpoints} resume from the
 * last complete checkpoint: the in-process form of {@code lpf run --restarts K}. Meant for
 * engines whose processes share this JVM (threads), where a process that throws fails the
 * section but leaves the JVM alive; with the {@code memory} module the retry rolls back without
 * touching a disk. (An engine with one JVM per process loses the JVM with the process: there
 * {@code lpf run} starts the job again and the {@code files} module carries the state.)
 */
public final class Restarts {
    private Restarts() {}

    /**
     * What {@link #exec} did.
     *
     * @param restarts    the retries it needed (0: the first run succeeded)
     * @param failures    the failure of each failed run, in order
     * @param resumptions where each retry's process 0 resumed, in order (as its
     *                    {@link Checkpoints#resume} found it; a retry that never called it has none)
     */
    public record Outcome(int restarts, List<FatalException> failures, List<Resumption> resumptions) {
        /** Copies the lists. */
        public Outcome {
            failures = List.copyOf(failures);
            resumptions = List.copyOf(resumptions);
        }

        /** @return the resumptions in words, e.g. "restart 1 resumed from checkpoint 4 at iteration 4273, 17 iterations redone"; "" if none */
        public String describeResumptions() {
            List<String> parts = new ArrayList<>();
            for (Resumption r : resumptions) parts.add(r.toString());
            return String.join("; ", parts);
        }
    }

    /**
     * Where one retry resumed, as its process 0's {@link Checkpoints#resume} found it.
     *
     * @param attempt    the retry's number (1, 2, …; 0: an explicit restart)
     * @param checkpoint the checkpoint it restored, 0 when it started from the beginning
     * @param iteration  the iteration it resumed at (0 from the beginning)
     * @param redone     the iterations the failed run had done beyond {@code iteration} (it
     *                   recorded its progress at least every 100 ms), -1 if unknown
     */
    public record Resumption(int attempt, long checkpoint, long iteration, long redone) {
        @Override
        public String toString() {
            String start = checkpoint == 0 ? "started from the beginning"
                    : "resumed from checkpoint " + checkpoint + " at iteration " + iteration;
            return (attempt == 0 ? "the run " : "restart " + attempt + " ") + start
                    + (redone < 0 ? "" : ", " + redone + " iteration" + (redone == 1 ? "" : "s") + " redone");
        }
    }

    /**
     * The SPMD function of one attempt of a job whose attempts a host framework makes, not
     * {@link #exec}: a Spark barrier stage that Spark runs again after a task or an executor was
     * lost, say. In attempt 1, 2, … every {@link Checkpoints#resume} restores the newest complete
     * checkpoint that run {@code runId} made (its first attempt resumes nothing); with the
     * {@code files} module every attempt must see the same directory.
     *
     * @param program     the program
     * @param attempt     the attempt's number, 0 for the first
     * @param runId       the job's run id, the same in every attempt and at every process
     * @param resumptions where process 0 records where this attempt resumed (when it calls
     *                    {@link Checkpoints#resume}); null: not recorded
     * @return the function to run at every process of the attempt's section
     */
    public static Spmd attempt(Spmd program, int attempt, String runId, List<Resumption> resumptions) {
        Objects.requireNonNull(program, "Restarts.attempt: program is null");
        Objects.requireNonNull(runId, "Restarts.attempt: runId is null");
        if (attempt < 0) throw new IllegalArgumentException("Restarts.attempt: attempt " + attempt + " < 0");
        if (runId.isBlank()) throw new IllegalArgumentException("Restarts.attempt: runId is blank");
        return new Attempt.Run(program, attempt, false, runId, null, resumptions);
    }

    /**
     * Runs {@code ctx.exec(p, spmd, args)}; if it fails with a {@link FatalException}, runs it
     * again, up to {@code restarts} times; each retry's {@link Checkpoints#resume} restores the
     * newest complete checkpoint.
     *
     * @param ctx      the context to exec from (e.g. {@code Lpf.root()})
     * @param p        processes
     * @param spmd     the program
     * @param args     its arguments
     * @param restarts how many retries are allowed, at least 0
     * @param resume   whether the first run resumes too (an explicit restart of a stopped job)
     * @param report   told one line per failure and retry (e.g. {@code System.err::println})
     * @return how many retries it took
     * @throws FatalException the last failure, with the earlier ones suppressed, when all
     *                        {@code restarts + 1} runs failed
     */
    public static Outcome exec(Context ctx, int p, Spmd spmd, Args args, int restarts, boolean resume,
                               Consumer<String> report) {
        return exec(ctx, p, spmd, args, restarts, resume, report, 0, java.util.UUID.randomUUID().toString());
    }

    /**
     * {@link #exec(Context, int, Spmd, Args, int, boolean, Consumer)} as one attempt of a job whose
     * earlier attempts ran elsewhere: what {@code lpf run} does in each JVM it launches again.
     *
     * @param firstAttempt the number of the first attempt made here (0: the job's first run)
     * @param runId        the job's run id: retries restore only checkpoints it made
     * @return how many retries it took here
     */
    public static Outcome exec(Context ctx, int p, Spmd spmd, Args args, int restarts, boolean resume,
                               Consumer<String> report, int firstAttempt, String runId) {
        Objects.requireNonNull(spmd, "Restarts.exec: spmd is null");
        Objects.requireNonNull(runId, "Restarts.exec: runId is null");
        if (restarts < 0) throw new IllegalArgumentException("Restarts.exec: restarts " + restarts + " < 0");
        if (firstAttempt < 0) throw new IllegalArgumentException("Restarts.exec: firstAttempt " + firstAttempt + " < 0");
        Map<String, MemoryStore.Shelf> shelves = new ConcurrentHashMap<>();
        List<FatalException> failures = new ArrayList<>();
        List<Resumption> resumptions = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int attempt = 0; ; attempt++) {
            int number = firstAttempt + attempt;
            try {
                ctx.exec(p, new Attempt.Run(spmd, number, resume, runId, shelves, resumptions), args);
                return new Outcome(attempt, failures, resumptions);
            } catch (FatalException e) {
                failures.add(e);
                if (attempt >= restarts) {
                    for (int i = 0; i < failures.size() - 1; i++) e.addSuppressed(failures.get(i));
                    report.accept("the section failed " + failures.size() + " time" + (failures.size() == 1 ? "" : "s")
                            + "; no restart left (" + restarts + " allowed): " + e.getMessage());
                    throw e;
                }
                report.accept("the section failed: " + e.getMessage() + "; restart " + (attempt + 1) + " of " + restarts
                        + " from the last complete checkpoint");
            }
        }
    }
}
