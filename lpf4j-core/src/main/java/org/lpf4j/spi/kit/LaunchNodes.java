package org.lpf4j.spi.kit;

import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;

/**
 * {@code lpf.engine.<engine>.launchNodes}: the nodes {@code lpf run --engine <engine> -p P
 * --nodes N} spreads its JVMs over. Declared here once for every engine that launches JVMs; each
 * engine says what 0 means and how its launcher places them. {@code lpf run --nodes N} sets it
 * for the selected engine ({@link #key}).
 */
public final class LaunchNodes {
    private LaunchNodes() {}

    /** The largest value: far more nodes than any machine has. */
    public static final int MAX = 1 << 20;

    /**
     * @param engine the engine's name
     * @return the parameter's key for that engine
     */
    public static String key(String engine) { return "lpf.engine." + engine + ".launchNodes"; }

    /**
     * Declares the engine's parameter (default 0, from 0 to {@link #MAX}).
     *
     * @param engine    the engine's name
     * @param placement how the engine's launcher uses N, and what 0 means, for the description
     * @return the parameter
     */
    public static Parameters.Parameter<Integer> declare(String engine, String placement) {
        return ParameterRegistry.global().integer(key(engine), 0, 0, MAX, "nodes (JVMs, for the hybrid engine) lpf run --nodes N spreads the job over: " + placement);
    }
}
