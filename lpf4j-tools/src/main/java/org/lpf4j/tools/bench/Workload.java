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
 * so global registrations made there are usable by the first step. A step must make the same
 * number of syncs on every process, and should allocate nothing.
 */
public interface Workload {

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
     * @return bytes each process sends per step: the numerator of {@link Metric#GIGABYTES_PER_SECOND}
     */
    long bytesPerStep(int p);

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
    }

    /** What a row reports. */
    enum Metric {
        /** Microseconds per step. */
        MICROSECONDS("µs"),
        /** {@link #bytesPerStep} of one process, in 10<sup>9</sup> bytes per second. */
        GIGABYTES_PER_SECOND("GB/s per proc");

        private final String unit;

        Metric(String unit) { this.unit = unit; }

        /** @return the unit printed in the table */
        public String unit() { return unit; }

        /**
         * @param secondsPerStep the measured median time of a step
         * @param bytesPerStep   bytes per step of one process
         * @return the value the table shows
         */
        public double value(double secondsPerStep, long bytesPerStep) {
            return this == MICROSECONDS ? secondsPerStep * 1e6 : bytesPerStep / secondsPerStep / 1e9;
        }
    }
}
