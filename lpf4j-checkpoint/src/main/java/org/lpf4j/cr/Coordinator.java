package org.lpf4j.cr;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Process 0's side of the checkpoint protocol: it decides at each checkpoint point whether a
 * checkpoint is due and which seq it gets, and commits a checkpoint once every process reported
 * its part written (or gives it up, saying so, when some process failed to write it), keeping the
 * newest {@code keep}. Used at process 0 only; not thread-safe. A checkpoint point with nothing
 * to commit costs a scan of the p reports; a commit writes the commit mark and prunes.
 */
final class Coordinator {
    private final CheckpointJob job;
    private final CheckpointStore store;
    private final CrSettings settings;
    private final long[] control;
    // The next seq to take, when the last was taken, the highest seq settled (committed or given up), the last committed.
    private long nextSeq, lastTakenNanos, settled, lastCommitted;
    private final Map<Long, Long> superstepOf = new LinkedHashMap<>();
    private final Map<Long, Long> iterationOf = new LinkedHashMap<>();

    /** @param control the words every process reports into ({@link ControlWords#words}) */
    Coordinator(CheckpointJob job, CrSettings settings, long[] control) {
        this.job = job;
        this.store = job.store();
        this.settings = settings;
        this.control = control;
        this.lastTakenNanos = System.nanoTime();
    }

    /** Lists the store and starts its watcher, so that a checkpoint point does no I/O. */
    void open() {
        nextSeq = store.nextSeq();
        settled = nextSeq - 1;
        store.discardOutsideRequest();
        store.outsideRequest();
    }

    /** @return the highest seq settled (committed or given up) */
    long settled() { return settled; }

    /** @return the newest checkpoint committed so far (0: none) */
    long lastCommitted() { return lastCommitted; }

    /**
     * At a checkpoint point at {@code now}: whether one is due (the program forced one, someone
     * outside asked, or the interval passed). A request from outside at a point that may not take
     * one is kept for the next.
     *
     * @return the seq to take, 0 for none
     */
    long due(boolean force, boolean mayTake, long now) {
        boolean asked = store.outsideRequest(); // consumed even when the interval is due too
        boolean due = mayTake && (force || asked || settings.everyNanos() > 0 && now - lastTakenNanos >= settings.everyNanos());
        if (asked && !mayTake) store.requestAgain();
        return due ? nextSeq : 0;
    }

    /** Notes that checkpoint {@code seq} is being taken at this superstep, with this iteration next (for its commit mark). */
    void taking(long seq, long superstep, long iteration) {
        superstepOf.put(seq, superstep);
        iterationOf.put(seq, iteration);
    }

    /** Notes that this process took its part of checkpoint {@code seq} at the point of {@code now}. */
    void took(long seq, long now) {
        nextSeq = seq + 1;
        lastTakenNanos = now;
    }

    /** Notes that the job resumed from checkpoint {@code seq}: the interval starts again. */
    void resumedFrom(long seq) {
        lastCommitted = seq;
        lastTakenNanos = System.nanoTime();
    }

    /**
     * Commits the newest checkpoint that every process reported written with no failed write
     * since the last settled one, and gives up (settles) a checkpoint some process failed to
     * write, saying so. A report of a failure at or below the settled seq is stale (the process
     * had not yet learnt the settled seq): nothing is committed until a fresh report comes.
     */
    void commitWhatIsWritten() {
        long everyone = Long.MAX_VALUE, failed = 0;
        int failedAt = -1;
        for (int q = 0; q < job.p(); q++) {
            everyone = Math.min(everyone, control[ControlWords.good(q)]);
            long f = control[ControlWords.failed(q)];
            if (f == 0) continue;
            if (f <= settled) return; // stale: wait for this process's next report
            if (failed == 0 || f < failed) {
                failed = f;
                failedAt = q;
            }
        }
        if (failed != 0 && failed <= everyone) {
            if (failed - 1 > settled) commit(failed - 1);
            System.err.println("lpf4j cr: checkpoint " + failed + " of " + job.program() + " is not committed: pid " + failedAt
                    + " could not write its part (see its message); the newest complete checkpoint is "
                    + (lastCommitted == 0 ? "none" : Long.toString(lastCommitted)));
            settled = failed;
            long givenUp = failed;
            superstepOf.keySet().removeIf(s -> s <= givenUp);
            iterationOf.keySet().removeIf(s -> s <= givenUp);
        } else if (everyone > settled && everyone != Long.MAX_VALUE && (failed == 0 || everyone < failed)) {
            commit(everyone);
            settled = everyone;
        }
    }

    private void commit(long seq) {
        Long superstep = superstepOf.get(seq);
        Map<String, String> mark = job.fields();
        mark.put("seq", Long.toString(seq));
        mark.put("superstep", superstep == null ? "?" : superstep.toString());
        Long next = iterationOf.get(seq);
        mark.put("iteration", next == null ? "?" : next.toString());
        mark.put("run", job.runId());
        mark.put("written", java.time.Instant.now().toString());
        String description = PartFormat.lines(mark);
        CheckpointEvent committed = new CheckpointEvent();
        committed.begin();
        try {
            store.commit(seq, description);
            job.emit(committed, "committed", seq, superstep == null ? -1 : superstep, description.length());
            lastCommitted = seq;
            superstepOf.keySet().removeIf(s -> s <= seq);
            iterationOf.keySet().removeIf(s -> s <= seq);
            store.prune(settings.keep());
        } catch (IOException | RuntimeException e) {
            System.err.println("lpf4j cr: could not commit checkpoint " + seq + " of " + job.program() + " in "
                    + store.where() + ": " + e + "; the job goes on");
        }
    }
}
