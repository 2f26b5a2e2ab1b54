package org.lpf4j.spark;

import org.lpf4j.debug.LpfProgrammingError;

/**
 * A task of a {@link BspStage} whose section failed: thrown by the task, it fails the barrier
 * stage, and Spark's driver reports it. Its message names the partition (the pid), the stage
 * attempt, and the section's failure; the cause is the {@code FatalException} with the causes
 * the section carried to this process, or the process's own exception.
 *
 * <p>A <em>programming error</em> is a failure that every attempt would repeat: an
 * {@code IllegalArgumentException}, {@code IllegalStateException},
 * {@code IndexOutOfBoundsException} or {@code NullPointerException} that one of lpf4j's own
 * checks threw (a full memory register or message queue, a bad registration, an argument out of
 * range), as opposed to one the program threw itself or a lost executor. Its message ends with
 * {@link #PROGRAMMING_ERROR}, and the stage is not retried.
 */
public final class BspStageException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The words that end the message of a programming error (what the driver looks for). */
    public static final String PROGRAMMING_ERROR = "[a programming error that every attempt would repeat: not retried]";
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

    /** @return whether this is a programming error, which Spark does not run again */
    public boolean isProgrammingError() { return isProgrammingError(getMessage()); }

    static boolean isProgrammingError(String message) { return message != null && message.endsWith(PROGRAMMING_ERROR); }

    /**
     * Whether an exception is one of lpf4j's checks failing: the debug layer's report, or of a type such checks throw, and
     * thrown (past the JDK's own frames, e.g. {@code Objects.checkIndex}) by lpf4j code other
     * than this package's, which holds no check a program can fail.
     */
    static boolean isProgrammingError(Throwable t) {
        if (t instanceof LpfProgrammingError) return true; // the debug layer's report (lpf.debug=true)
        if (!(t instanceof IllegalArgumentException || t instanceof IllegalStateException
                || t instanceof IndexOutOfBoundsException || t instanceof NullPointerException)) {
            return false;
        }
        for (StackTraceElement f : t.getStackTrace()) {
            String c = f.getClassName();
            if (c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.")) continue;
            return c.startsWith("org.lpf4j.") && !c.startsWith("org.lpf4j.spark.");
        }
        return false;
    }
}
