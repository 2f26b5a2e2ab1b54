package org.lpf4j.engine.threads;

import org.lpf4j.Context;
import org.lpf4j.spi.EngineProvider;

/** Makes the threads engine available to {@link java.util.ServiceLoader} as engine "threads". */
public final class ThreadsEngineProvider implements EngineProvider {
    /** Used by {@link java.util.ServiceLoader}. */
    public ThreadsEngineProvider() {}

    @Override public String name() { return "threads"; }

    /** Lower than a cluster engine that finds itself launched, higher than nothing. */
    @Override public int priority() { return 50; }

    @Override public String unavailableReason() { return null; }

    @Override public Context root() { return ThreadsEngine.root(); }
}
