package org.lpf4j.spark;

import org.lpf4j.spi.Components;
import org.lpf4j.spi.ParameterRegistry;

import java.util.HashMap;
import java.util.Map;

/**
 * The lpf4j parameters that running {@link BspStage} tasks set in this executor JVM (parameters
 * are per JVM): each key holds one value while any task that set it runs, and is cleared when the
 * last one ends. A task that wants another value for a key held by a running task is refused,
 * naming both values, rather than running with the other stage's setting.
 */
final class ExecutorParameters {
    private ExecutorParameters() {}

    private record Held(String value, int tasks) {}

    private static final Map<String, Held> HELD = new HashMap<>();

    /** Parameters applied for one task: closing releases them. */
    interface Applied extends AutoCloseable {
        @Override void close();
    }

    /**
     * @param parameters the task's parameters
     * @param where      the task, for the message
     * @return what to close when the task ends
     * @throws IllegalStateException if a running task holds one of the keys with another value
     */
    static Applied apply(Map<String, String> parameters, String where) {
        Components.installed(); // declares every installed module's parameters: an executor may not have yet
        synchronized (HELD) {
            for (Map.Entry<String, String> e : parameters.entrySet()) {
                Held h = HELD.get(e.getKey());
                if (h != null && !h.value().equals(e.getValue())) {
                    throw new IllegalStateException(where + ": parameter " + e.getKey() + "=" + e.getValue() + " conflicts with "
                            + e.getKey() + "=" + h.value() + " of another lpf4j stage running in this executor; run them one "
                            + "after the other or give them the same value");
                }
            }
            for (Map.Entry<String, String> e : parameters.entrySet()) {
                HELD.merge(e.getKey(), new Held(e.getValue(), 1), (a, b) -> new Held(a.value(), a.tasks() + 1));
                ParameterRegistry.global().set(e.getKey(), e.getValue());
            }
        }
        Map<String, String> mine = new HashMap<>(parameters);
        return () -> {
            synchronized (HELD) {
                for (String key : mine.keySet()) {
                    Held h = HELD.get(key);
                    if (h.tasks() == 1) {
                        HELD.remove(key);
                        ParameterRegistry.global().clear(key);
                    } else {
                        HELD.put(key, new Held(h.value(), h.tasks() - 1));
                    }
                }
            }
        };
    }
}
