package org.lpf4j;

import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.Engines;

/**
 * Entry point: the root context ({@code LPF_ROOT}) of the selected engine, and
 * {@code lpf_hook}.
 *
 * <p>The engine is chosen at run time from the engines on the class or module path: the one the
 * parameter {@code lpf.engine} names (system property or {@code LPF_ENGINE}), otherwise the
 * usable engine of highest priority (the threads engine when nothing else is installed).
 */
public final class Lpf {
    private Lpf() {}

    /** The version of the LPF specification implemented ({@code _LPF_VERSION}). */
    public static final long SPEC_VERSION = 202000L;

    /** The largest process count ({@code LPF_MAX_P}). */
    public static final int MAX_P = (1 << 24) - 1;

    /**
     * @return a valid one-process context of the selected engine: register, put, get, sync and
     *         probe work on it, and {@code exec} starts sections on the whole machine
     */
    public static Context root() {
        return Engines.selected().root();
    }

    /**
     * @param engine an engine's name, e.g. {@code "threads"}
     * @return the root context of that engine
     * @throws IllegalArgumentException if no such engine is installed or it cannot run here
     */
    public static Context root(String engine) {
        return Engines.byName(engine).root();
    }

    /**
     * Runs {@code spmd} on an existing parallel environment ({@code lpf_hook}): every member of
     * the environment calls this with its own {@code init} and {@code args}; each becomes one
     * process of the section. Returns when the section has ended everywhere.
     *
     * @param init this member's handle on the environment (made by an engine)
     * @param spmd the function every process runs
     * @param args this process's own arguments
     * @throws FatalException if the section failed
     */
    public static void hook(Init init, Spmd spmd, Args args) {
        init.hook(spmd, args);
    }

    /** @return the engine {@link #root()} uses */
    public static EngineProvider engine() {
        return Engines.selected();
    }
}
