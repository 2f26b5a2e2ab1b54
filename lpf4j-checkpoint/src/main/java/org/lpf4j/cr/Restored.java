package org.lpf4j.cr;

import java.util.List;

/**
 * What {@link Checkpoints#resume} restored.
 *
 * @param seq       the checkpoint's number
 * @param superstep the superstep count of the run that wrote it, when it wrote it
 * @param where     where it was read from ("directory /scratch/job")
 * @param attempt   the {@link Restarts} attempt this run is (0: the first run of the job, an explicit restart)
 * @param notes     what was skipped on the way, newest first: incomplete checkpoints (a job died
 *                  while writing them), damaged parts (checksum); empty if the newest was used
 */
public record Restored(long seq, long superstep, String where, int attempt, List<String> notes) {
    /** Copies the notes. */
    public Restored {
        notes = List.copyOf(notes);
    }
}
