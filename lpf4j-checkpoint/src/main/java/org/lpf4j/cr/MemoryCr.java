package org.lpf4j.cr;

import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;

/**
 * Checkpoint/restart module {@code memory}: keeps the newest checkpoints in this JVM's memory, so
 * that a section of an in-process engine (threads) whose process threw rolls back to its last
 * checkpoint and runs on without a new JVM and without touching a disk ({@link Restarts#exec},
 * {@code lpf run --restarts K} on the threads engine). It does not survive the JVM: a job whose
 * JVM dies, or an engine with one JVM per process (mpi, hybrid), needs {@code files}.
 * Checkpoints cost one copy of the declared state each. Priority 0, below {@code none}: chosen
 * only when asked for ({@code lpf.cr=memory}). Parameters: {@code every}, {@code keep}.
 */
public final class MemoryCr implements CheckpointModule {
    private TriggerParameters triggers;

    /** For {@link java.util.ServiceLoader}. */
    public MemoryCr() {}

    @Override public String name() { return "memory"; }

    @Override public Version frameworkApiVersion() { return TriggerParameters.API; }

    @Override public Version version() { return TriggerParameters.VERSION; }

    @Override
    public void open(ModuleParameters parameters) { triggers = new TriggerParameters(parameters, false); }

    @Override public Query query() { return Query.run(0); }

    @Override public CrSettings settings() { return triggers.resolve(); }

    @Override
    public CheckpointStore open(Job job) { return new MemoryStore(Attempt.current().shelf(job), job); }
}
