package org.lpf4j.cr;

import org.lpf4j.Context;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.lpf4j.cr.ControlWords.ACCEPTED;
import static org.lpf4j.cr.ControlWords.DECISION;

/**
 * The collective search of {@link Checkpoints#resume} for the newest checkpoint every process can
 * restore: process 0 proposes the committed checkpoints newest first (skipping those of another
 * run, program, p or lpf4j version), every process reads and verifies its part of the candidate,
 * and process 0 settles on the first that all parts fit, moves on past a damaged part, and stops
 * the job at a part that does not fit the declarations. Two syncs per candidate and one more at
 * the end; each candidate costs every process the read of its part.
 */
final class Restorer {
    private final Context ctx;
    private final int pid, p;
    private final ControlWords control;
    private final CheckpointJob job;
    private final CheckpointStore store;
    private final CrSettings settings;
    private final Declarations declarations;

    Restorer(Context ctx, ControlWords control, CheckpointJob job, CrSettings settings, Declarations declarations) {
        this.ctx = ctx;
        this.pid = ctx.pid();
        this.p = ctx.nprocs();
        this.control = control;
        this.job = job;
        this.store = job.store();
        this.settings = settings;
        this.declarations = declarations;
    }

    /**
     * Restores the declared state from the newest checkpoint every process can use, or none.
     * Process 0 prints what it restored or why it starts from the beginning.
     *
     * @return what was restored, or empty when the run starts from the beginning
     * @throws IllegalStateException if the newest complete checkpoint does not belong to this job
     *                               or does not fit its declarations (at every process)
     */
    Optional<Restored> restoreNewestUsable(Attempt attempt) {
        long[] words = control.words;
        boolean anyRun = settings.resume() || attempt.resume() || job.runId().isEmpty();
        List<Long> candidates = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        if (pid == 0) {
            List<Long> committed = store.committed();
            long newest = committed.isEmpty() ? 0 : committed.get(0);
            for (long s : store.incomplete()) {
                if (s > newest) notes.add("checkpoint " + s + " is incomplete (the job ended while writing it): ignored");
            }
            for (long c : committed) {
                String run = job.commitMark(c).getOrDefault("run", "");
                if (anyRun || run.equals(job.runId())) candidates.add(c);
                else notes.add("checkpoint " + c + " was made by another run of the job: ignored by this retry");
            }
        }
        int next = 0;
        long previousVerdict = 0;
        PartFormat.Decoded part = null;
        String problem = null;
        while (true) {
            if (pid == 0) {
                long candidate = 0, accepted = 0;
                if (previousVerdict == 1) {
                    accepted = candidates.get(next - 1);
                } else if (previousVerdict >= 3) {
                    candidate = -candidates.get(next - 1);
                    accepted = previousVerdict - 3; // the pid that refused it
                } else if (next < candidates.size()) {
                    candidate = candidates.get(next++);
                    if (job.refusal(job.commitMark(candidate)) != null) candidate = -candidate;
                }
                words[DECISION] = candidate;
                words[ACCEPTED] = accepted;
                control.broadcastDecision();
            }
            ctx.sync();
            long candidate = words[DECISION];
            if (candidate == 0 && words[ACCEPTED] > 0) break;
            if (candidate == 0) {
                if (pid == 0) {
                    notes.add(candidates.isEmpty() ? "no complete checkpoint of this run in " + store.where()
                            : "no usable checkpoint among " + candidates);
                    long redone = redone(attempt, 0);
                    System.err.println("lpf4j cr: starting " + job.program() + " from the beginning: " + String.join("; ", notes)
                            + redoneText(redone));
                    attempt.resumed(new Restarts.Resumption(attempt.number(), 0, 0, redone));
                }
                return Optional.empty();
            }
            if (candidate < 0) {
                String why = job.refusal(job.commitMark(-candidate));
                if (why == null) {
                    why = problem != null ? problem : "pid " + words[ACCEPTED] + "'s part does not fit this run's "
                            + "declarations (see its message)";
                }
                throw new IllegalStateException("Checkpoints.resume at pid " + pid + ": checkpoint " + (-candidate) + " in "
                        + store.where() + " cannot be restored by this run: " + why);
            }
            long verdict;
            problem = null;
            try {
                part = PartFormat.read(store.read(candidate), "part " + pid + " of checkpoint " + candidate + " in " + store.where());
                problem = misfit(part, candidate);
                verdict = problem == null ? 1 : 3 + pid;
            } catch (IOException e) {
                problem = e.getMessage();
                verdict = 2;
            }
            if (verdict == 2) System.err.println("lpf4j cr: pid " + pid + ": " + problem + ": trying an older checkpoint");
            words[ControlWords.good(pid)] = verdict;
            if (pid != 0) control.report(8);
            ctx.sync();
            if (pid == 0) {
                previousVerdict = 1;
                for (int q = 0; q < p; q++) {
                    long v = words[ControlWords.good(q)];
                    if (v >= 3) {
                        previousVerdict = v;
                        break;
                    }
                    if (v != 1 && previousVerdict == 1) {
                        previousVerdict = v;
                        notes.add("checkpoint " + candidate + " has a damaged or missing part at pid " + q
                                + " (see its message): skipped");
                    }
                }
            }
        }
        long seq = words[ACCEPTED];
        if (part == null || !part.header().get("seq").equals(Long.toString(seq))) {
            throw new IllegalStateException("Checkpoints.resume at pid " + pid + ": process 0 accepted checkpoint " + seq
                    + " but this process verified " + (part == null ? "none" : part.header().get("seq")));
        }
        return Optional.of(restore(attempt, seq, part, notes));
    }

    /** Writes the accepted part back and says so (process 0 on standard error). */
    private Restored restore(Attempt attempt, long seq, PartFormat.Decoded part, List<String> notes) {
        CheckpointEvent restored = new CheckpointEvent();
        restored.begin();
        declarations.restore(part);
        long iteration = Long.parseLong(part.header().get("iteration"));
        long superstep = Long.parseLong(part.header().getOrDefault("superstep", "0"));
        job.emit(restored, "restored", seq, superstep, part.bytes().byteSize());
        long redone = -1;
        if (pid == 0) {
            redone = redone(attempt, iteration);
            System.err.println("lpf4j cr: " + job.program() + " resumed from checkpoint " + seq + " at iteration " + iteration
                    + " (superstep " + superstep + ") in " + store.where()
                    + (attempt.number() > 0 ? ", restart " + attempt.number() : "")
                    + (notes.isEmpty() ? "" : "; " + String.join("; ", notes)) + redoneText(redone));
            attempt.resumed(new Restarts.Resumption(attempt.number(), seq, iteration, redone));
        }
        return new Restored(seq, superstep, iteration, redone, store.where(), attempt.number(), notes);
    }

    /**
     * Process 0 of a retry: how many iterations the failed run had done beyond {@code from}, as far
     * as the store's record of its progress tells (none recorded: it never passed a checkpoint
     * point); -1 where no run failed before this one (an explicit restart).
     */
    private long redone(Attempt attempt, long from) {
        if (attempt.number() == 0 || job.runId().isEmpty()) return -1;
        return Math.max(0, store.reached(job.runId()) - from);
    }

    private static String redoneText(long redone) {
        return redone < 0 ? "" : "; " + redone + " iteration" + (redone == 1 ? "" : "s") + " redone";
    }

    /** @return what in this verified part does not fit this run's declarations, or null */
    private String misfit(PartFormat.Decoded part, long seq) {
        String where = "checkpoint " + seq + " in " + store.where();
        String refusal = job.refusal(part.header());
        if (refusal != null) return where + ": part " + pid + ": " + refusal;
        if (!Integer.toString(pid).equals(part.header().get("pid"))) return where + ": part " + pid + " says pid " + part.header().get("pid");
        if (!part.header().getOrDefault("iteration", "").matches("\\d+")) {
            return where + ": part " + pid + " does not record the iteration that comes next (made before checkpoints did)";
        }
        Map<String, String> mark = job.commitMark(seq);
        String committedAt = mark.get("superstep");
        if (committedAt != null && !committedAt.equals(part.header().get("superstep"))) {
            return where + ": part " + pid + " was taken at superstep " + part.header().get("superstep")
                    + ", the commit mark says " + committedAt + " (a part of another run?)";
        }
        List<String> differ = declarations.differences(part);
        return differ.isEmpty() ? null : where + ": part " + pid + " does not fit this run's declarations: "
                + String.join(", ", differ);
    }
}
