package org.lpf4j.spi;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * The process's run-time parameters: static shortcuts to {@link ParameterRegistry#global()}, and
 * the {@link Parameter} type. A parameter's key is {@code lpf.<framework>.<module>.<name>}; its
 * value is resolved, in this order, from a programmatic setting ({@link #set}, used by the
 * launcher's {@code --param k=v}), the Java system property of the same key, the environment
 * variable {@code LPF_<FRAMEWORK>_<MODULE>_<NAME>} (dots become underscores, upper case), and the
 * default. Each resolved value knows its {@link Source}. Invalid values are errors naming the key,
 * the text, its source and why it is wrong; unknown keys are errors naming the nearest known key.
 *
 * <p>Modules declare their parameters in {@link Component#open} through a
 * {@link ModuleParameters}; code that needs a parameter before any module is opened (the engine's
 * statics) may declare it here directly and adopt it in {@code open}.
 */
public final class Parameters {
    private Parameters() {}

    /** Where a resolved value came from, from the highest precedence to the lowest. */
    public enum Source {
        /** {@link ParameterRegistry#set}: the launcher's {@code --param}, or a program. */
        PROGRAMMATIC("programmatic"),
        /** A Java system property ({@code -Dkey=value}). */
        SYSTEM_PROPERTY("system property"),
        /** An environment variable. */
        ENVIRONMENT("environment"),
        /** Nothing set: the default. */
        DEFAULT("default");

        private final String label;

        Source(String label) { this.label = label; }

        /** @return how {@code lpf info} names this source */
        public String label() { return label; }
    }

    /**
     * A resolved value.
     *
     * @param value  the typed value
     * @param text   the text it was parsed from ({@code null} for the default)
     * @param source where it came from
     * @param <T>    the value type
     */
    public record Value<T>(T value, String text, Source source) {}

    /**
     * A typed parameter of one registry. Reading it resolves the sources each time (a map lookup,
     * a system-property lookup and an environment lookup: cheap, not for hot paths).
     *
     * @param <T> the value type
     */
    public static final class Parameter<T> {
        private final ParameterRegistry registry;
        private final String key;
        private final T defaultValue;
        private final String description;
        private final String type;
        private final Function<String, T> parser;

        Parameter(ParameterRegistry registry, String key, T defaultValue, String description, String type,
                  Function<String, T> parser) {
            this.registry = registry;
            this.key = key;
            this.defaultValue = defaultValue;
            this.description = Objects.requireNonNull(description, "description");
            this.type = type;
            this.parser = parser;
        }

        /** @return the key, {@code lpf.<framework>.<module>.<name>} */
        public String key() { return key; }

        /** @return the default value */
        public T defaultValue() { return defaultValue; }

        /** @return what the parameter does */
        public String description() { return description; }

        /** @return the values it takes, e.g. {@code "integer in [1, 100]"} */
        public String type() { return type; }

        /** @return the registry it belongs to */
        public ParameterRegistry registry() { return registry; }

        /** @return the environment variable that may set it, e.g. {@code LPF_ENGINE_THREADS_SPIN} */
        public String environmentVariable() { return toEnvironmentName(key); }

        /** @return where the current value comes from */
        public Source source() { return resolveText().source(); }

        /**
         * @return the current value
         * @throws IllegalArgumentException if the configured text is not a valid value (naming the
         *                                  key, the text, its source and the reason)
         */
        public T get() { return resolve().value(); }

        /**
         * @return the current value with its text and source
         * @throws IllegalArgumentException if the configured text is not a valid value
         */
        public Value<T> resolve() {
            Value<String> raw = resolveText();
            if (raw.source() == Source.DEFAULT) return new Value<>(defaultValue, null, Source.DEFAULT);
            return new Value<>(parse(raw.value(), " (from " + raw.source().label()
                    + (raw.source() == Source.ENVIRONMENT ? " " + environmentVariable() : "") + ")"), raw.value(), raw.source());
        }

        /** @throws IllegalArgumentException if {@code text} is not a valid value: naming the key, the text and why */
        T parse(String text) { return parse(text, ""); }

        private T parse(String text, String from) {
            try {
                return parser.apply(text.trim());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("parameter " + key + " = '" + text + "'" + from + ": " + e.getMessage()
                        + "; expected " + type, e);
            }
        }

        private Value<String> resolveText() {
            String v = registry.programmatic(key);
            if (v != null) return new Value<>(v, v, Source.PROGRAMMATIC);
            v = registry.systemProperty(key);
            if (v != null) return new Value<>(v, v, Source.SYSTEM_PROPERTY);
            v = registry.environment(environmentVariable());
            if (v != null) return new Value<>(v, v, Source.ENVIRONMENT);
            return new Value<>(null, null, Source.DEFAULT);
        }

        @Override
        public String toString() { return key + " (" + type + ", default " + defaultValue + ")"; }
    }

    /**
     * @param key a parameter key or key prefix
     * @return its environment variable name: dots become underscores, upper case
     */
    public static String toEnvironmentName(String key) {
        return key.replace('.', '_').toUpperCase(Locale.ROOT);
    }

    /**
     * Registers an integer parameter in the global registry; see {@link ParameterRegistry#integer}.
     *
     * @param key          the key
     * @param defaultValue the default
     * @param min          smallest valid value
     * @param max          largest valid value
     * @param description  what it does
     * @return the parameter
     */
    public static Parameter<Integer> integer(String key, int defaultValue, int min, int max, String description) {
        return ParameterRegistry.global().integer(key, defaultValue, min, max, description);
    }

    /**
     * Registers a boolean parameter in the global registry; see {@link ParameterRegistry#bool}.
     *
     * @param key          the key
     * @param defaultValue the default
     * @param description  what it does
     * @return the parameter
     */
    public static Parameter<Boolean> bool(String key, boolean defaultValue, String description) {
        return ParameterRegistry.global().bool(key, defaultValue, description);
    }

    /**
     * Registers a string parameter in the global registry.
     *
     * @param key          the key
     * @param defaultValue the default
     * @param description  what it does
     * @return the parameter
     */
    public static Parameter<String> string(String key, String defaultValue, String description) {
        return ParameterRegistry.global().string(key, defaultValue, description);
    }

    /**
     * Registers a one-of-these-words parameter in the global registry.
     *
     * @param key          the key
     * @param defaultValue the default
     * @param allowed      the valid values
     * @param description  what it does
     * @return the parameter
     */
    public static Parameter<String> choice(String key, String defaultValue, List<String> allowed, String description) {
        return ParameterRegistry.global().choice(key, defaultValue, allowed, description);
    }

    /**
     * Sets a value in the global registry (highest precedence), as the launcher's flags do.
     * Modules' parameters exist once {@link Components#installed()} has opened them. A multi-JVM
     * engine's root {@code exec} carries rank 0's settings to the section's other JVMs, so a
     * setting made before the {@code exec} holds at every process of it.
     *
     * @param key   a registered key
     * @param value its text, validated now
     * @throws IllegalArgumentException if the key is unknown or the value invalid
     */
    public static void set(String key, String value) {
        Components.installed();
        ParameterRegistry.global().set(key, value);
    }

    /** @param key a key whose programmatic setting in the global registry is removed */
    public static void clear(String key) { ParameterRegistry.global().clear(key); }

    /** @return all parameters of the global registry, sorted by key */
    public static Collection<Parameter<?>> all() {
        Components.installed();
        return ParameterRegistry.global().all();
    }
}
