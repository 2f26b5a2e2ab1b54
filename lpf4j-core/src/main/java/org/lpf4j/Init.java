package org.lpf4j;

/**
 * How {@link Lpf#hook(Init, Spmd, Args)} reaches an existing parallel environment (the C API's
 * {@code lpf_init_t}): a group of threads, an MPI communicator, a launcher's job. Engines make
 * them, e.g. {@code ThreadsEngine.group(n).member(pid)}.
 */
public interface Init {
    /**
     * Runs {@code spmd} as this process of the environment and returns when the section ends.
     * Called by {@link Lpf#hook}; every member of the environment calls it together.
     *
     * @param spmd the function every process runs
     * @param args this process's own arguments
     */
    void hook(Spmd spmd, Args args);
}
