package org.lpf4j.spi;

import java.util.List;

/**
 * The {@code engine} framework's shortcuts over {@link Components#installed()}: the installed
 * engines and the selected one ({@code lpf.engine} names it explicitly, otherwise the usable
 * engine of highest priority, ties by name). An explicit choice that cannot run is an error,
 * never a silent fallback.
 */
public final class Engines {
    private Engines() {}

    /** @return the parameter that names the engine explicitly, {@code lpf.engine} */
    public static Parameters.Parameter<String> choice() {
        return Components.installed().choiceParameter(Framework.ENGINE);
    }

    /** @return all installed engines, in selection order (usable ones by priority, then declined ones) */
    public static List<EngineProvider> installed() {
        return Components.installed().verdicts(Framework.ENGINE).stream()
                .map(v -> (EngineProvider) v.module()).toList();
    }

    /**
     * @param name an engine name
     * @return that engine
     * @throws IllegalArgumentException if it is not installed or cannot run here (with the reason)
     */
    public static EngineProvider byName(String name) {
        Components c = Components.installed();
        EngineProvider e = (EngineProvider) c.byName(Framework.ENGINE, name);
        Components.Verdict v = c.verdict(e);
        if (!v.canRun()) throw new IllegalArgumentException("engine '" + name + "' cannot run here: " + v.reason());
        return e;
    }

    /**
     * @return the explicitly chosen engine, or the usable engine of highest priority
     * @throws IllegalArgumentException if the explicit choice cannot be used
     * @throws IllegalStateException    if no engine can run
     */
    public static EngineProvider selected() {
        return Components.installed().select(Framework.ENGINE, EngineProvider.class);
    }
}
