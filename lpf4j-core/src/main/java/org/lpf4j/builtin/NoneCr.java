package org.lpf4j.builtin;

import org.lpf4j.spi.CrModule;
import org.lpf4j.spi.Query;

/**
 * Checkpoint/restart module {@code none}: sections cannot be checkpointed. Priority 1: the default
 * when nothing asks for checkpoints (above {@code memory}, which must be asked for; {@code files}
 * runs at 20 once its directory is set).
 */
public final class NoneCr extends BuiltinModule implements CrModule {
    /** For {@link java.util.ServiceLoader}. */
    public NoneCr() {}

    @Override public String name() { return "none"; }

    @Override public Query query() { return Query.run(1); }

    @Override public boolean canCheckpoint() { return false; }
}
