package org.lpf4j.superstep;

import org.lpf4j.spi.Components;
import org.lpf4j.spi.ParameterRegistry;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Rank 0's programmatic parameter settings ({@code Parameters.set}, the launcher's
 * {@code --param}) as the other JVMs of a multi-JVM job adopt them: each root {@code exec} ships
 * them ({@link Shipment}), and a JVM without rank 0 makes them its own before its processes run
 * the section. A key rank 0 has cleared since gets back this JVM's own setting (or none). So a
 * program's {@code Parameters.set} before its {@code exec} holds at every process, as it does on
 * the threads engine; the settings stay until the next section's replace them (parameters are
 * read when a section or a module starts, not while it runs).
 *
 * <p>Cost: a lock and a map operation per key, once per section and rank. Thread-safe.
 */
final class RankZeroSettings {
    private RankZeroSettings() {}

    /** This JVM, so that the ranks that share rank 0's JVM leave its settings alone. */
    static final String JVM = UUID.randomUUID().toString();

    /** The keys adopted so far, with this JVM's own setting before the first adoption (null: none). */
    private static final Map<String, String> OWN = new HashMap<>();

    /**
     * @param settings rank 0's settings at its {@code exec}
     * @param from     the {@link #JVM} they were shipped from
     * @throws IllegalArgumentException if a key is not a parameter of this JVM or a value is invalid
     */
    static void adopt(Map<String, String> settings, String from) {
        if (JVM.equals(from)) return;
        ParameterRegistry registry = ParameterRegistry.global();
        synchronized (OWN) {
            if (OWN.isEmpty() && settings.isEmpty()) return;
            Components.installed(); // declares every installed module's parameters: this JVM may not have yet
            for (var it = OWN.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, String> e = it.next();
                if (settings.containsKey(e.getKey())) continue;
                if (e.getValue() == null) registry.clear(e.getKey()); else registry.set(e.getKey(), e.getValue());
                it.remove();
            }
            for (Map.Entry<String, String> e : settings.entrySet()) {
                if (!OWN.containsKey(e.getKey())) OWN.put(e.getKey(), registry.setting(e.getKey()));
                registry.set(e.getKey(), e.getValue());
            }
        }
    }
}
