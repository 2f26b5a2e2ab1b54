package org.lpf4j.tools.bench;

import org.lpf4j.Context;

import java.lang.foreign.Arena;

/**
 * One row of the side-by-side benchmark: a step that every process of a section repeats (for
 * example "put 8 bytes to the next pid, then sync"), timed by {@link Measurement}.
 *
 * <p>To add a row (a collective, a BSMP exchange), implement this interface and add the instance
 * to the list {@link SideBySide} runs ({@link Workloads#standard()} or your own list).
 *
 * <p>Contract: {@link #prepare} is called once per section by every process, after the harness
 * has reserved {@link #registrations()} register entries and {@link #messages(int)} queue
 * entries (plus its own) and synced; the harness syncs once more after {@code prepare} returns,
 * so global registrations made there are usable by the first step ({@code prepare} may sync
 * itself, the same number of times on every process). A step must make the same number of syncs
 * on every process, and should allocate nothing. After the last step and a sync the harness calls
 * {@link Step#release()}, which deregisters what {@code prepare} registered (in the same order on
 * every process), so that rows also run under the debug layer.
 *
 * <p>A workload is {@link java.io.Serializable}: a multi-process engine (mpi, hybrid) ships the
 * section's SPMD function, and with it the workload, to every JVM of the job; so a workload is a
 * named class whose fields serialize (not an anonymous class or a capturing lambda).
 */
public interface Workload extends java.io.Serializable {

    /** @return the row's name, e.g. {@code "empty sync"} */
    String name();

    /** @return how the row reports its time per step */
    Metric metric();

    /**
     * @param p a process count of the table
     * @return whether this row is measured at {@code p} (the others show "-")
     */
    boolean runsAt(int p);

    /** @return memory register entries each process needs */
    long registrations();

    /**
     * @param p the number of processes
     * @return message queue entries each process needs per superstep
     */
    long messages(int p);

    /**
     * @param p the number of processes
     * @return what one process moves per step in the unit the {@link #metric()} counts: bytes for
     *         {@link Metric#GIGABYTES_PER_SECOND} (the row's name says whether sent or received),
     *         messages for {@link Metric#MESSAGES_PER_SECOND}; unused for {@link Metric#MICROSECONDS}
     */
    long amountPerStep(int p);

    /**
     * The context whose {@code exec} starts this row's sections; the default is the table's.
     * Rows that compare roots (the engine's own, the debug layer) override it. Called once per
     * cell, before the section starts.
     *
     * @param table the root context the table was given
     * @return the root to use
     */
    default Context root(Context table) { return table; }

    /**
     * Allocates and registers this process's memory (from {@code arena}, which lives until the
     * section's measurement ends) and returns the step.
     *
     * @param ctx   this process's context
     * @param arena a shared arena for the workload's memory
     * @return the step every process repeats
     */
    Step prepare(Context ctx, Arena arena);

    /** One repetition of a workload on one process. */
    @FunctionalInterface
    interface Step {
        /** Issues this process's requests of the step and syncs (the same number of times on every pid). */
        void run();

        /**
         * Deregisters (and closes) what {@link #prepare} made, after the last step and a sync;
         * collective: the same calls in the same order on every process. The default does
         * nothing (for steps that registered nothing).
         */
        default void release() {}
    }

    /** What a row reports. */
    enum Metric {
        /** Microseconds per step. */
        MICROSECONDS("µs"),
        /** {@link #amountPerStep} bytes of one process, in 10<sup>9</sup> bytes per second. */
        GIGABYTES_PER_SECOND("GB/s per proc"),
        /** {@link #amountPerStep} messages of one process, in 10<sup>6</sup> messages per second. */
        MESSAGES_PER_SECOND("M msg/s per proc");

        private final String unit;

        Metric(String unit) { this.unit = unit; }

        /** @return the unit printed in the table */
        public String unit() { return unit; }

        /**
         * @param secondsPerStep the measured median time of a step
         * @param amountPerStep  bytes or messages per step of one process
         * @return the value the table shows
         */
        public double value(double secondsPerStep, long amountPerStep) {
            return switch (this) {
                case MICROSECONDS -> secondsPerStep * 1e6;
                case GIGABYTES_PER_SECOND -> amountPerStep / secondsPerStep / 1e9;
                case MESSAGES_PER_SECOND -> amountPerStep / secondsPerStep / 1e6;
            };
        }
    }
}
