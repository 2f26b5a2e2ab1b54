package org.lpf4j.spark;

/**
 * A task of a {@link BspStage} whose section failed: thrown by the task, it fails the barrier
 * stage, and Spark's driver reports it. Its message names the partition (the pid), the stage
 * attempt, and the section's failure; the cause is the {@code FatalException} with the causes
 * the section carried to this process.
 */
public final class BspStageException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int partition;

    /**
     * @param partition the partition (pid) whose task throws
     * @param message   the message
     * @param cause     the section's failure
     */
    public BspStageException(int partition, String message, Throwable cause) {
        super(message, cause);
        this.partition = partition;
    }

    /** @return the partition (pid) whose task threw this */
    public int partition() { return partition; }
}
