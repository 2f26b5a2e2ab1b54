package org.lpf4j.engine.threads;

import org.lpf4j.Context;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;

import java.util.List;
import java.util.Map;

/**
 * Engine module {@code threads}: makes the threads engine available to
 * {@link java.util.ServiceLoader}. It can run in every JVM, with priority 50: lower than a cluster
 * engine that finds itself launched by its launcher, higher than nothing.
 */
public final class ThreadsEngineProvider implements EngineProvider {
    /** The threads engine's version. */
    public static final Version VERSION = new Version(0, 1, 0);

    /** Used by {@link java.util.ServiceLoader}. */
    public ThreadsEngineProvider() {}

    /** The engine's name. */
    public static final String NAME = "threads";

    @Override public String name() { return NAME; }

    @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }

    @Override public Version version() { return VERSION; }

    /** Claims the engine's parameters ({@code procs, spin, yield, probeMillis, barrier, maxProcs,
     * hookTimeout, syncTimeout}); no side effects. */
    @Override
    public void open(ModuleParameters parameters) {
        List<Parameters.Parameter<?>> own = parameters.registry() == ParameterRegistry.global()
                ? List.of(ThreadsParameters.PROCS, ThreadsParameters.SPIN, ThreadsParameters.YIELD, ThreadsParameters.PROBE_MILLIS,
                        ThreadsParameters.BARRIER, ThreadsParameters.MAX_PROCS, ThreadsParameters.HOOK_TIMEOUT, ThreadsParameters.SYNC_TIMEOUT)
                : ThreadsParameters.declare(parameters.registry());
        own.forEach(parameters::adopt);
    }

    @Override public Query query() { return Query.run(50); }

    @Override public Context root() { return ThreadsEngine.root(); }

    /** @return {@code lpf.engine.threads.procs} */
    @Override public int machineSize() { return ThreadsParameters.PROCS.get(); }

    /**
     * Sets {@code lpf.engine.threads.procs} to exactly {@code n}, raising or lowering it (more
     * processes than cores is allowed), so that an {@code exec(Lpf.MAX_P)} from a root gets
     * {@code n} ({@code lpf run -p 1} runs one process, not the core count). Empty if it is
     * {@code n} already.
     */
    @Override
    public Map<String, String> settingsForProcesses(int n) {
        return n == machineSize() ? Map.of() : Map.of(ThreadsParameters.PROCS.key(), Integer.toString(n));
    }
}
