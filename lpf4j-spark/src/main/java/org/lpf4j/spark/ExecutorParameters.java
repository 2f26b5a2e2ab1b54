package org.lpf4j.spark;

import org.lpf4j.spi.Components;
import org.lpf4j.spi.ParameterRegistry;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The lpf4j parameters of the {@link BspStage} tasks running in this executor JVM. Parameters
 * are per JVM (the engines read them on the task's threads and on threads of their own), so the
 * tasks running at once in one executor run with one parameter set: the first task sets its
 * stage's parameters, a task whose stage has exactly the same set joins it, and a task whose set
 * differs is refused, naming the difference, rather than run with the other stage's settings. A
 * key one stage sets and the other leaves unset differs too (a stage that sets nothing would
 * otherwise run with another's {@code lpf.debug=true} or {@code lpf.cr=files}). When the last task
 * ends, the keys get back the settings they had before the first one.
 *
 * <p>Cost per task: a check of each parameter and a map comparison; the first task also sets
 * the keys and the last one restores them (a map operation each).
 */
final class ExecutorParameters {
    private ExecutorParameters() {}

    private static final Object LOCK = new Object();
    /** The parameters of the running tasks (empty when none runs). Guarded by {@link #LOCK}. */
    private static Map<String, String> held = Map.of();
    /** The programmatic settings the held keys had before (null: none), for the last task to restore. Guarded by {@link #LOCK}. */
    private static Map<String, String> before = Map.of();
    /** How many tasks run with {@link #held}. Guarded by {@link #LOCK}. */
    private static int tasks;

    /** Parameters applied for one task: closing releases them (once). */
    interface Applied extends AutoCloseable {
        @Override void close();
    }

    /**
     * Applies a task's parameters for as long as it runs. Nothing changes if it throws.
     *
     * @param parameters the task's parameters (its stage's)
     * @param where      the task, for the messages
     * @return what to close when the task ends
     * @throws IllegalArgumentException if a key names no parameter installed here or a value is
     *                                  invalid (naming both): every attempt would fail alike
     * @throws IllegalStateException    if tasks of a stage with other parameters run in this
     *                                  executor, naming the keys that differ
     */
    static Applied apply(Map<String, String> parameters, String where) {
        Components.installed(); // declares every installed module's parameters: an executor may not have yet
        ParameterRegistry registry = ParameterRegistry.global();
        Map<String, String> mine = Map.copyOf(parameters);
        for (Map.Entry<String, String> e : new TreeMap<>(mine).entrySet()) {
            try {
                registry.check(e.getKey(), e.getValue());
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException(where + ": BspStage.parameter(" + e.getKey() + ", " + e.getValue() + "): "
                        + bad.getMessage(), bad);
            }
        }
        synchronized (LOCK) {
            if (tasks == 0) {
                before = set(registry, mine);
                held = mine;
            } else if (!held.equals(mine)) {
                throw new IllegalStateException(where + ": parameters " + differing(mine, held) + " conflict with "
                        + differing(held, mine) + " of another lpf4j stage running in this executor (parameters hold in the "
                        + "whole JVM; a key one stage leaves unset counts as a value): run the stages one after the other or "
                        + "give them the same parameters");
            }
            tasks++;
        }
        return new Applied() {
            private boolean closed;

            @Override
            public void close() {
                synchronized (LOCK) {
                    if (closed) return;
                    closed = true;
                    if (--tasks == 0) {
                        restore(registry, before);
                        held = Map.of();
                        before = Map.of();
                    }
                }
            }
        };
    }

    /** Sets {@code settings}; on a failure restores what it set. @return the keys' settings before (null: none) */
    private static Map<String, String> set(ParameterRegistry registry, Map<String, String> settings) {
        Map<String, String> old = new HashMap<>();
        try {
            for (Map.Entry<String, String> e : settings.entrySet()) {
                old.put(e.getKey(), registry.setting(e.getKey()));
                registry.set(e.getKey(), e.getValue());
            }
        } catch (RuntimeException e) {
            restore(registry, old);
            throw e;
        }
        return old;
    }

    private static void restore(ParameterRegistry registry, Map<String, String> settings) {
        for (Map.Entry<String, String> e : settings.entrySet()) {
            if (e.getValue() == null) registry.clear(e.getKey());
            else registry.set(e.getKey(), e.getValue());
        }
    }

    /** @return the keys on which {@code a} and {@code b} differ, with {@code a}'s values, e.g. {@code {lpf.debug=(unset)}} */
    private static String differing(Map<String, String> a, Map<String, String> b) {
        TreeSet<String> keys = new TreeSet<>(a.keySet());
        keys.addAll(b.keySet());
        Map<String, String> d = new TreeMap<>();
        for (String k : keys) {
            if (!Objects.equals(a.get(k), b.get(k))) d.put(k, a.getOrDefault(k, "(unset)"));
        }
        return d.toString();
    }
}
