package org.lpf4j.examples;

/**
 * One process's part of a prepared BSP program: its input generated, its memory allocated and
 * registered, so that {@link #run()} can be repeated (a benchmark times it) and {@link #check()}
 * compares the result with a sequential computation. Every method is collective: all processes
 * of the section call it in the same order (each may sync).
 *
 * <p>Cost: {@link #run()} states the program's BSP cost in its class comment; {@link #reset()} is
 * local work proportional to this process's input; {@link #check()} is at least the sequential
 * program's work.
 */
public interface BspRun extends AutoCloseable {

    /** Restores this process's input, so that the next {@link #run()} computes from scratch. Local, no sync. */
    void reset();

    /** Runs the program once on the current input; on return this process's result is complete. */
    void run();

    /**
     * Compares this process's result with the sequential one.
     *
     * @return a one-line summary of the result (the same on every process, or process 0's)
     * @throws IllegalStateException naming the program, p and the first difference, if they differ
     */
    String check();

    /** Deregisters what the program registered (collective; after a sync) and frees its memory. */
    @Override
    void close();
}
