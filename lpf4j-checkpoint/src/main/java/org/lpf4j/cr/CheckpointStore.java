package org.lpf4j.cr;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Where one process of a job keeps its parts of checkpoints: what a {@link CheckpointModule}
 * opens for {@link Checkpoints}. A checkpoint is numbered by a sequence number ({@code seq},
 * increasing over the life of a store, never reused); it consists of one part per process and
 * exists only once process 0 has {@linkplain #commit committed} it, after every process reported
 * its part written. Calls come from one process's thread, except {@link #write}, which
 * {@link Checkpoints} calls from a writer thread of its own while the program computes on.
 * Stores are synchronous: the asynchrony is the caller's.
 */
public interface CheckpointStore extends AutoCloseable {
    /** @return where the checkpoints live, for messages (e.g. "directory /scratch/job") */
    String where();

    /**
     * Writes this process's part of checkpoint {@code seq} durably (a file store forces it to the
     * device) and so that a crash during the write leaves no part that could be taken for
     * complete. O(part size).
     *
     * @param seq  the checkpoint
     * @param part the bytes ({@link PartFormat}), read only during the call
     * @throws IOException if the part could not be written; nothing of it then remains
     */
    void write(long seq, MemorySegment part) throws IOException;

    /**
     * Reads this process's part of checkpoint {@code seq}.
     *
     * @param seq the checkpoint
     * @return its bytes, unchecked (the caller verifies them with {@link PartFormat})
     * @throws IOException if the part is missing or unreadable
     */
    MemorySegment read(long seq) throws IOException;

    /**
     * Process 0 only: marks checkpoint {@code seq} complete, with a description of the job that
     * made it. Afterwards it is among {@link #committed()}.
     *
     * @param seq         the checkpoint
     * @param description the job's description (program, p, lpf4j version, superstep)
     * @throws IOException if the mark could not be written (the checkpoint then does not exist)
     */
    void commit(long seq, String description) throws IOException;

    /** @return the committed checkpoints, newest first */
    List<Long> committed();

    /**
     * @param seq a committed checkpoint
     * @return the description it was committed with, or null if it cannot be read
     */
    String description(long seq);

    /** @return checkpoints begun but never committed (a job died while writing them), newest first */
    List<Long> incomplete();

    /** @return the first sequence number no checkpoint in the store uses */
    long nextSeq();

    /**
     * Process 0 only: removes all but the newest {@code keep} committed checkpoints, and the
     * incomplete ones older than the newest committed.
     *
     * @param keep how many committed checkpoints to keep, at least 1
     */
    void prune(int keep);

    /**
     * Process 0 only: whether someone outside the job asked for a checkpoint since the last call
     * (e.g. {@code lpf checkpoint DIR}); the request is consumed. Must be cheap: it is asked at
     * every checkpoint point.
     *
     * @return true once per outside request
     */
    default boolean outsideRequest() { return false; }

    /** Process 0 only: makes the next {@link #outsideRequest} answer true again (a request consumed when none could be taken). */
    default void requestAgain() {}

    /** Process 0 only, at the start of a job: forgets a request left over from an earlier job. */
    default void discardOutsideRequest() {}

    /**
     * Process 0 only: how far run {@code run} of the job has got, the iteration that comes next,
     * so that a retry can say how many iterations it does again. Called at every checkpoint point:
     * must be cheap, with no I/O on the caller's thread (a file store writes it from a thread of
     * its own, and when closed).
     *
     * @param run       the run's id
     * @param iteration the iteration that comes next
     */
    default void progress(String run, long iteration) {}

    /**
     * @param run a run's id
     * @return the last iteration {@link #progress} recorded for it, as far as it reached the store
     *         (a file store may miss the last 100 ms before a crash), or -1 if none is known
     */
    default long reached(String run) { return -1; }

    /** Releases what the store holds open; committed checkpoints stay. */
    @Override
    default void close() {}
}
