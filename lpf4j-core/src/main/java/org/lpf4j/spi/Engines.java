package org.lpf4j.spi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Finds the installed engines ({@link EngineProvider} services) and picks one: the one the
 * parameter {@code lpf.engine} names, otherwise the usable one of highest priority (ties by
 * name). An explicit choice that cannot run is an error, never a silent fallback.
 */
public final class Engines {
    private Engines() {}

    /** The parameter that names the engine explicitly. */
    public static final Parameters.Parameter<String> ENGINE =
            Parameters.string("lpf.engine", "", "the engine to use; empty: the usable engine of highest priority");

    private static volatile List<EngineProvider> installed;

    /** @return all installed engines, highest priority first */
    public static List<EngineProvider> installed() {
        List<EngineProvider> list = installed;
        if (list == null) {
            List<EngineProvider> found = new ArrayList<>();
            ServiceLoader.load(EngineProvider.class, Engines.class.getClassLoader()).forEach(found::add);
            found.sort(Comparator.comparingInt(EngineProvider::priority).reversed()
                    .thenComparing(EngineProvider::name));
            installed = list = List.copyOf(found);
        }
        return list;
    }

    /**
     * @param name an engine name
     * @return that engine
     * @throws IllegalArgumentException if it is not installed or cannot run here
     */
    public static EngineProvider byName(String name) {
        for (EngineProvider e : installed()) {
            if (e.name().equals(name)) {
                String why = e.unavailableReason();
                if (why != null) {
                    throw new IllegalArgumentException("engine '" + name + "' cannot run here: " + why);
                }
                return e;
            }
        }
        throw new IllegalArgumentException("engine '" + name + "' is not installed; installed: "
                + installed().stream().map(EngineProvider::name).toList());
    }

    /** @return the explicitly chosen engine, or the usable engine of highest priority */
    public static EngineProvider selected() {
        String chosen = ENGINE.get();
        if (!chosen.isEmpty()) return byName(chosen);
        for (EngineProvider e : installed()) {
            if (e.unavailableReason() == null) return e;
        }
        throw new IllegalStateException("no usable LPF engine installed: " + installed().stream()
                .map(e -> e.name() + " (" + e.unavailableReason() + ")").toList());
    }
}
