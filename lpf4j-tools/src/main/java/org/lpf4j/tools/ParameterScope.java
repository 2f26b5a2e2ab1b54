package org.lpf4j.tools;

import org.lpf4j.spi.Engines;
import org.lpf4j.spi.Parameters;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Programmatic parameter settings ({@link Parameters#set}) made by one command and undone by
 * {@link #close()}, so that a command run inside a longer-lived JVM (a test, an IDE) leaves the
 * parameter registry as it found it. Not thread-safe; cheap (a map of the touched keys).
 */
final class ParameterScope implements AutoCloseable {
    /** For each touched key: its programmatic value before the first change, or null if it had none. */
    private final Map<String, String> previous = new LinkedHashMap<>();

    /**
     * Makes sure the parameters of the core and of the installed engines are registered, so that
     * {@link #set} can validate any of them.
     */
    ParameterScope() {
        Engines.installed(); // opening the engines registers their parameters
    }

    /**
     * Sets {@code key} to {@code value} with launcher precedence.
     *
     * @throws IllegalArgumentException if the key is not a registered parameter or the value is invalid
     */
    void set(String key, String value) {
        if (!previous.containsKey(key)) previous.put(key, programmaticValue(key));
        Parameters.set(key, value);
    }

    /**
     * Asks the selected engine for the settings under which its roots provide {@code procs}
     * processes ({@link org.lpf4j.spi.EngineProvider#settingsForProcesses}: the threads engine's
     * machine size becomes exactly {@code procs}, raised or lowered) and applies them.
     *
     * @param procs the number of processes the root of the selected engine must provide
     */
    void forProcs(int procs) {
        Engines.selected().settingsForProcesses(procs).forEach(this::set);
    }

    /** Restores every touched key to its programmatic value before this scope (or to none). */
    @Override
    public void close() {
        previous.forEach((key, old) -> {
            if (old == null) Parameters.clear(key); else Parameters.set(key, old);
        });
        previous.clear();
    }

    private static String programmaticValue(String key) {
        for (Parameters.Parameter<?> p : Parameters.all()) {
            if (p.key().equals(key) && p.source() == Parameters.Source.PROGRAMMATIC) return p.resolve().text();
        }
        return null;
    }
}
