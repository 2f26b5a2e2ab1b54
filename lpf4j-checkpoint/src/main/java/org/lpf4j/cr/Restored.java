package org.lpf4j.cr;

import java.util.List;

/**
 * What {@link Checkpoints#resume} restored.
 *
 * @param seq       the checkpoint's number
 * @param superstep the superstep count of the run that wrote it, when it wrote it
 * @param iteration the iteration that comes next: the checkpoint holds the state after the one before
 *                  it ({@link Checkpoints#iteration()} now returns it)
 * @param redone    at process 0 of a retry, how many iterations the failed run had done beyond
 *                  {@code iteration} as far as its recorded progress tells, which this run does again;
 *                  -1 where unknown (the other processes, an explicit restart)
 * @param where     where it was read from ("directory /scratch/job")
 * @param attempt   the {@link Restarts} attempt this run is (0: the first run of the job, an explicit restart)
 * @param notes     what was skipped on the way, newest first: incomplete checkpoints (a job died
 *                  while writing them), damaged parts (checksum); empty if the newest was used
 */
public record Restored(long seq, long superstep, long iteration, long redone, String where, int attempt, List<String> notes) {
    /** Copies the notes. */
    public Restored {
        notes = List.copyOf(notes);
    }
}
