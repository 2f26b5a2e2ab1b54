package org.lpf4j.bench.programs;

/**
 * What a Java user would write instead of an lpf4j program, on a fixed number of threads: the
 * same input, the same result. Created with its input; not thread-safe (one harness thread
 * drives it).
 */
public interface Peer extends AutoCloseable {

    /** Restores the input (outside the timed region). */
    void reset();

    /** Computes the result from the current input on the peer's threads; the timed region. */
    void run();

    /**
     * Checks the result of the last {@link #run()}.
     *
     * @throws IllegalStateException naming the peer and the difference, if it is wrong
     */
    void check();

    /** Stops the peer's threads. */
    @Override
    void close();
}
