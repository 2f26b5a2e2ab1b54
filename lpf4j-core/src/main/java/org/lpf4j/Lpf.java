package org.lpf4j;

import org.lpf4j.debug.Debug;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.CoreParameters;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.Engines;
import org.lpf4j.spi.Parameters;

/**
 * Entry point: the root context ({@code LPF_ROOT}) of the selected engine, and
 * {@code lpf_hook}.
 *
 * <p>The engine is chosen at run time from the engines on the class or module path: the one the
 * parameter {@code lpf.engine} names (system property or {@code LPF_ENGINE}), otherwise the
 * usable engine of highest priority (engines are modules, e.g. {@code lpf4j-engine-threads}; the
 * core has none); see
 * {@link org.lpf4j.spi.Components}.
 *
 * <p>With the parameter {@code lpf.debug} true ({@code -Dlpf.debug=true}, {@code LPF_DEBUG=true},
 * {@code lpf run --debug}) the contexts are wrapped in the checking layer ({@link Debug}); with it
 * false (the default) they are the engine's own, at no cost.
 */
public final class Lpf {
    private Lpf() {}

    /** The version of the LPF specification implemented ({@code _LPF_VERSION}). */
    public static final long SPEC_VERSION = 202000L;

    /** The largest process count ({@code LPF_MAX_P}). */
    public static final int MAX_P = (1 << 24) - 1;

    /** Whether contexts are wrapped in the checking layer, {@code lpf.debug}. */
    public static final Parameters.Parameter<Boolean> DEBUG = CoreParameters.DEBUG;

    /**
     * @return a valid one-process context of the selected engine: register, put, get, sync and
     *         probe work on it, and {@code exec} starts sections on the whole machine. Costs a
     *         selection (a query per installed engine) and the engine's root construction.
     * @throws IllegalArgumentException if {@code lpf.engine} names an engine that is not installed
     *                                  or cannot run here, a parameter is invalid, or a system
     *                                  property or environment variable under {@code lpf.engine.},
     *                                  {@code lpf.boot.}, {@code lpf.coll.}, {@code lpf.cr.} or
     *                                  {@code lpf.debug} is a misspelt parameter key (the message
     *                                  names it and the nearest known key)
     */
    public static Context root() {
        requireNoMisspeltSettings();
        return checked(Engines.selected().root());
    }

    /**
     * @param engine an engine's name, e.g. {@code "threads"}
     * @return the root context of that engine (checked if {@code lpf.debug} is true)
     * @throws IllegalArgumentException if no such engine is installed or it cannot run here, or a
     *                                  setting is a misspelt parameter key (as {@link #root()})
     */
    public static Context root(String engine) {
        requireNoMisspeltSettings();
        return checked(Engines.byName(engine).root());
    }

    /** See {@link Components#requireNoMisspeltSettings()}: a typo in a setting is an error, not ignored. */
    private static void requireNoMisspeltSettings() {
        Components.installed().requireNoMisspeltSettings();
    }

    private static Context checked(Context root) {
        return DEBUG.get() ? Debug.wrap(root) : root;
    }

    /**
     * Runs {@code spmd} on an existing parallel environment ({@code lpf_hook}): every member of
     * the environment calls this with its own {@code init} and {@code args}; each becomes one
     * process of the section. Returns when the section has ended everywhere.
     *
     * @param init this member's handle on the environment (made by an engine)
     * @param spmd the function every process runs
     * @param args this process's own arguments
     * @throws IllegalArgumentException if a setting is a misspelt parameter key (as {@link #root()})
     * @throws FatalException if the section failed
     */
    public static void hook(Init init, Spmd spmd, Args args) {
        requireNoMisspeltSettings();
        (DEBUG.get() ? Debug.wrap(init) : init).hook(spmd, args);
    }

    /** @return the engine {@link #root()} uses */
    public static EngineProvider engine() {
        return Engines.selected();
    }
}
