package org.lpf4j.cr;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One process's writes of its checkpoint parts: the staging buffer a part is copied into at the
 * checkpoint point, the thread that writes it to the store while the program computes on, and
 * what became of the writes (the last good one, the recent failures), which the checkpoint points
 * report to process 0. One write at a time: {@link #await} before the next {@link #stage}.
 * Allocates the staging buffer when a part outgrows it (doubling) and one thread per write.
 */
final class CheckpointWriter {
    private final CheckpointJob job;
    private Thread writer;
    private MemorySegment staging = MemorySegment.NULL;
    private volatile long lastGood;
    /** Seqs whose write failed at this process, oldest first (written by the writer thread; guarded by itself). */
    private final long[] failures = new long[64];
    private int failureCount;

    CheckpointWriter(CheckpointJob job) { this.job = job; }

    /** @return the newest seq this process wrote its part of (0: none) */
    long lastGood() { return lastGood; }

    /**
     * Copies a part into the staging buffer, which must not be in use by a write (see {@link #await}).
     *
     * @return the part, a slice of the staging buffer
     */
    MemorySegment stage(byte[] header, MemorySegment[] data) {
        long[] lengths = new long[data.length];
        for (int i = 0; i < data.length; i++) lengths[i] = data[i].byteSize();
        long size = PartFormat.size(header, lengths);
        if (staging.byteSize() < size) staging = Arena.ofAuto().allocate(Math.max(size, staging.byteSize() * 2), 8);
        return staging.asSlice(0, PartFormat.write(staging, header, data));
    }

    /** Starts writing {@code part} (from {@link #stage}) as this process's part of checkpoint {@code seq}. */
    void write(long seq, long superstep, MemorySegment part) {
        CheckpointStore target = job.store();
        writer = Thread.ofPlatform().daemon().name("lpf4j-cr-writer-pid-" + job.pid()).start(() -> {
            CheckpointEvent written = new CheckpointEvent();
            written.begin();
            try {
                target.write(seq, part);
                lastGood = seq;
                job.emit(written, "written", seq, superstep, part.byteSize());
            } catch (IOException | RuntimeException e) {
                recordFailure(seq);
                job.emit(written, "failed", seq, superstep, part.byteSize());
                System.err.println("lpf4j cr: pid " + job.pid() + " could not write its part of checkpoint " + seq + " of "
                        + job.program() + " to " + target.where() + ": " + e + "; the job goes on without it");
            }
        });
    }

    /** @return the lowest seq above {@code floor} whose write failed at this process, 0 if none */
    long lowestFailureAbove(long floor) {
        synchronized (failures) {
            long lowest = 0;
            for (int i = 0; i < failureCount; i++) {
                long f = failures[i];
                if (f > floor && (lowest == 0 || f < lowest)) lowest = f;
            }
            return lowest;
        }
    }

    private void recordFailure(long seq) {
        synchronized (failures) {
            if (failureCount == failures.length) {
                System.arraycopy(failures, 1, failures, 0, failures.length - 1);
                failureCount--;
            }
            failures[failureCount++] = seq;
        }
    }

    /** Waits for the write in flight, at most {@code millis} (0: as long as it takes); false if it is still running. */
    boolean await(long millis) {
        Thread w = writer;
        if (w == null) return true;
        boolean interrupted = false;
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (w.isAlive()) {
            try {
                if (millis == 0) w.join();
                else w.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                if (millis != 0 && System.nanoTime() >= deadline) break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        if (w.isAlive()) return false;
        writer = null;
        return true;
    }
}
