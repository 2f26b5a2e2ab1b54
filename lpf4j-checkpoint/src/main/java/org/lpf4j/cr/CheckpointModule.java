package org.lpf4j.cr;

import org.lpf4j.spi.CrModule;

/**
 * A {@code cr} module that can keep checkpoints: it opens a {@link CheckpointStore} per process
 * of a job and says how often checkpoints are due. Selected at run time like every module
 * ({@code lpf.cr=<name>}, or the usable one of highest priority); {@link Checkpoints#init} asks
 * the selected module once per process.
 */
public interface CheckpointModule extends CrModule {
    @Override default boolean canCheckpoint() { return true; }

    /**
     * Opens this process's store for a job.
     *
     * @param job the job: its program, p, this process's pid
     * @return the store
     * @throws IllegalStateException if the store cannot be opened (a missing or unwritable
     *                               directory), naming the parameter and the path
     */
    CheckpointStore open(Job job);

    /** @return the settings resolved now (interval, how many to keep, whether to resume) */
    CrSettings settings();

    /**
     * The job a store serves.
     *
     * @param program the name the program gave {@link Checkpoints#init}
     * @param nprocs  the number of processes
     * @param pid     this process
     */
    record Job(String program, int nprocs, int pid) {}
}
