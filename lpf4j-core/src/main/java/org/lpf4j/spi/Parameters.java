package org.lpf4j.spi;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The one registry of run-time parameters. A parameter's key is {@code lpf.<framework>.<module>.<name>};
 * its value is resolved, in this order, from a programmatic setting ({@link #set}, used by the
 * launcher's flags), the Java system property of the same key, the environment variable
 * {@code LPF_<FRAMEWORK>_<MODULE>_<NAME>} (dots become underscores, upper case), and the default.
 * Each resolved value knows its {@link Source}. Invalid values are errors naming the key.
 */
public final class Parameters {
    private Parameters() {}

    /** Where a resolved value came from. */
    public enum Source { PROGRAMMATIC, SYSTEM_PROPERTY, ENVIRONMENT, DEFAULT }

    private static final Map<String, Parameter<?>> REGISTRY = new ConcurrentHashMap<>();
    private static final Map<String, String> SET = new ConcurrentHashMap<>();

    /**
     * A typed parameter. Reading it resolves the sources each time (cheap; not for hot paths).
     *
     * @param <T> the value type
     */
    public static final class Parameter<T> {
        private final String key;
        private final T defaultValue;
        private final String description;
        private final Function<String, T> parser;

        private Parameter(String key, T defaultValue, String description, Function<String, T> parser) {
            this.key = key;
            this.defaultValue = defaultValue;
            this.description = description;
            this.parser = parser;
        }

        /** @return the key, {@code lpf.<framework>.<module>.<name>} */
        public String key() { return key; }

        /** @return the default value */
        public T defaultValue() { return defaultValue; }

        /** @return what the parameter does */
        public String description() { return description; }

        /** @return the environment variable that may set it */
        public String environmentVariable() { return key.replace('.', '_').toUpperCase(java.util.Locale.ROOT); }

        /** @return where the current value comes from */
        public Source source() {
            if (SET.containsKey(key)) return Source.PROGRAMMATIC;
            if (System.getProperty(key) != null) return Source.SYSTEM_PROPERTY;
            if (System.getenv(environmentVariable()) != null) return Source.ENVIRONMENT;
            return Source.DEFAULT;
        }

        /**
         * @return the current value
         * @throws IllegalArgumentException if the configured text is not a valid value
         */
        public T get() {
            String raw = switch (source()) {
                case PROGRAMMATIC -> SET.get(key);
                case SYSTEM_PROPERTY -> System.getProperty(key);
                case ENVIRONMENT -> System.getenv(environmentVariable());
                case DEFAULT -> null;
            };
            if (raw == null) return defaultValue;
            try {
                return parser.apply(raw.trim());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("parameter " + key + " = '" + raw + "' (from "
                        + source() + "): " + e.getMessage(), e);
            }
        }
    }

    /**
     * Registers an integer parameter with an inclusive range.
     *
     * @param key          the key
     * @param defaultValue the default
     * @param min          smallest valid value
     * @param max          largest valid value
     * @param description  what it does
     * @return the parameter
     */
    public static Parameter<Integer> integer(String key, int defaultValue, int min, int max, String description) {
        return register(new Parameter<>(key, defaultValue, description, s -> {
            int v;
            try {
                v = Integer.parseInt(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not an integer");
            }
            if (v < min || v > max) throw new IllegalArgumentException("out of range [" + min + ", " + max + "]");
            return v;
        }));
    }

    /**
     * Registers a string parameter.
     *
     * @param key          the key
     * @param defaultValue the default
     * @param description  what it does
     * @return the parameter
     */
    public static Parameter<String> string(String key, String defaultValue, String description) {
        return register(new Parameter<>(key, defaultValue, description, s -> s));
    }

    private static <T> Parameter<T> register(Parameter<T> p) {
        Parameter<?> old = REGISTRY.putIfAbsent(p.key(), p);
        if (old != null) throw new IllegalStateException("parameter " + p.key() + " registered twice");
        return p;
    }

    /**
     * Sets a value programmatically (highest precedence), as the launcher's flags do.
     *
     * @param key   a registered key
     * @param value its text, validated now
     * @throws IllegalArgumentException if the key is unknown or the value invalid
     */
    public static void set(String key, String value) {
        Parameter<?> p = REGISTRY.get(Objects.requireNonNull(key));
        if (p == null) throw new IllegalArgumentException("unknown parameter " + key + "; known: " + REGISTRY.keySet());
        String old = SET.put(key, value);
        try {
            p.get();
        } catch (IllegalArgumentException e) {
            if (old == null) SET.remove(key); else SET.put(key, old);
            throw e;
        }
    }

    /** @param key a key whose programmatic setting is removed */
    public static void clear(String key) { SET.remove(key); }

    /** @return all registered parameters */
    public static Collection<Parameter<?>> all() { return REGISTRY.values(); }
}
