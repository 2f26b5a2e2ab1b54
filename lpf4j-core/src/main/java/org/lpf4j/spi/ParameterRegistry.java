package org.lpf4j.spi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * A registry of run-time parameters and the sources their values come from. The process has one,
 * {@link #global()} (what {@link Parameters} works on); tests and tools make isolated ones with
 * their own environment and system-property lookups.
 *
 * <p>Resolution order of a value: programmatic setting ({@link #set}, the launcher's
 * {@code --param k=v}) &gt; Java system property of the same key &gt; environment variable
 * ({@link Parameters.Parameter#environmentVariable()}) &gt; default. Resolving reads those sources
 * each time: cheap, but not for hot paths (read once per section, or cache).
 *
 * <p>Thread-safe.
 */
public final class ParameterRegistry {
    private static final Pattern KEY = Pattern.compile("lpf(\\.[A-Za-z][A-Za-z0-9_]*)+");
    private static final ParameterRegistry GLOBAL = new ParameterRegistry(System::getenv, System::getProperty);

    private final UnaryOperator<String> environment;
    private final UnaryOperator<String> systemProperties;
    private final Map<String, Parameters.Parameter<?>> registered = new ConcurrentSkipListMap<>();
    private final Map<String, String> programmatic = new ConcurrentHashMap<>();

    /**
     * @param environment      looks up an environment variable ({@code System::getenv} in production)
     * @param systemProperties looks up a system property ({@code System::getProperty} in production)
     */
    public ParameterRegistry(UnaryOperator<String> environment, UnaryOperator<String> systemProperties) {
        this.environment = Objects.requireNonNull(environment, "environment");
        this.systemProperties = Objects.requireNonNull(systemProperties, "systemProperties");
    }

    /** @return the process-wide registry, over the real environment and system properties */
    public static ParameterRegistry global() { return GLOBAL; }

    // ---- registration ----------------------------------------------------------------------

    /**
     * Registers an integer parameter with an inclusive range.
     *
     * @param key          {@code lpf.<framework>.<module>.<name>} (or another {@code lpf.} key)
     * @param defaultValue the default, within the range
     * @param min          smallest valid value
     * @param max          largest valid value
     * @param description  what it does, one line
     * @return the parameter
     * @throws IllegalStateException    if the key is registered already with another type,
     *                                  default or description (the same declaration again
     *                                  returns the registered parameter)
     * @throws IllegalArgumentException if the key is malformed or the default out of range
     */
    public Parameters.Parameter<Integer> integer(String key, int defaultValue, int min, int max, String description) {
        if (defaultValue < min || defaultValue > max) {
            throw new IllegalArgumentException("parameter " + key + ": default " + defaultValue
                    + " not in [" + min + ", " + max + "]");
        }
        return register(key, defaultValue, description, "integer in [" + min + ", " + max + "]", s -> {
            long v;
            try {
                v = Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not an integer");
            }
            if (v < min || v > max) throw new IllegalArgumentException("out of range [" + min + ", " + max + "]");
            return (int) v;
        });
    }

    /**
     * Registers a boolean parameter ({@code true}/{@code false}, also {@code 1}/{@code 0},
     * {@code yes}/{@code no}, {@code on}/{@code off}).
     *
     * @param key          the key
     * @param defaultValue the default
     * @param description  what it does
     * @return the parameter
     */
    public Parameters.Parameter<Boolean> bool(String key, boolean defaultValue, String description) {
        return register(key, defaultValue, description, "boolean", s -> switch (s.toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off" -> false;
            default -> throw new IllegalArgumentException("not a boolean (true/false)");
        });
    }

    /**
     * Registers a free-text parameter.
     *
     * @param key          the key
     * @param defaultValue the default
     * @param description  what it does
     * @return the parameter
     */
    public Parameters.Parameter<String> string(String key, String defaultValue, String description) {
        return register(key, Objects.requireNonNull(defaultValue, "defaultValue"), description, "string", s -> s);
    }

    /**
     * Registers a parameter that takes one of a fixed set of words.
     *
     * @param key          the key
     * @param defaultValue the default, one of {@code allowed}
     * @param allowed      the valid values
     * @param description  what it does
     * @return the parameter
     */
    public Parameters.Parameter<String> choice(String key, String defaultValue, List<String> allowed, String description) {
        List<String> values = List.copyOf(allowed);
        if (!values.contains(defaultValue)) {
            throw new IllegalArgumentException("parameter " + key + ": default '" + defaultValue + "' not one of " + values);
        }
        return register(key, defaultValue, description, "one of " + String.join("|", values), s -> {
            if (values.contains(s)) return s;
            String near = Suggest.nearest(s, values);
            throw new IllegalArgumentException("not one of " + values + (near == null ? "" : "; did you mean '" + near + "'?"));
        });
    }

    private <T> Parameters.Parameter<T> register(String key, T defaultValue, String description, String type,
                                                 Function<String, T> parser) {
        if (key == null || !KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("parameter key '" + key + "': expected lpf.<framework>.<module>.<name>");
        }
        Parameters.Parameter<T> p = new Parameters.Parameter<>(this, key, defaultValue, description, type, parser);
        Parameters.Parameter<?> old = registered.putIfAbsent(key, p);
        if (old == null) return p;
        if (old.type().equals(type) && old.defaultValue().equals(defaultValue) && old.description().equals(description)) {
            @SuppressWarnings("unchecked")
            Parameters.Parameter<T> same = (Parameters.Parameter<T>) old;
            return same; // the same declaration again (a module opened by a second component set)
        }
        throw new IllegalStateException("parameter " + key + " registered twice with different declarations: "
                + old + " and " + p);
    }

    // ---- setting and looking up --------------------------------------------------------------

    /**
     * Sets a value programmatically (highest precedence), as the launcher's flags do.
     *
     * @param key   a registered key
     * @param value its text, validated now
     * @throws IllegalArgumentException if the key is unknown (naming the nearest known key) or the
     *                                  value invalid; nothing is changed then
     */
    public void set(String key, String value) {
        Parameters.Parameter<?> p = require(key);
        Objects.requireNonNull(value, () -> "value of " + key);
        String old = programmatic.put(key, value);
        try {
            p.get();
        } catch (IllegalArgumentException e) {
            if (old == null) programmatic.remove(key); else programmatic.put(key, old);
            throw e;
        }
    }

    /**
     * Checks a setting without making it: what {@link #set} would refuse. Costs a map lookup and a
     * parse.
     *
     * @param key   a key
     * @param value its text
     * @throws IllegalArgumentException if the key is unknown (naming the nearest known key) or the
     *                                  value invalid (naming the key, the text and why)
     */
    public void check(String key, String value) {
        require(key).parse(Objects.requireNonNull(value, () -> "value of " + key));
    }

    /** @param key a key whose programmatic setting is removed (no effect if none) */
    public void clear(String key) { programmatic.remove(key); }

    /**
     * @return the programmatic settings ({@link #set}: the launcher's {@code --param}, a program's
     *         own), key to text, as a copy; what a root {@code exec} carries to the section's other JVMs
     */
    public Map<String, String> settings() { return new TreeMap<>(programmatic); }

    /**
     * @param key a key
     * @return its programmatic setting, or null if none
     */
    public String setting(String key) { return programmatic.get(key); }

    /**
     * @param key a key
     * @return the registered parameter of that key
     * @throws IllegalArgumentException if none is, naming the nearest registered key
     */
    public Parameters.Parameter<?> require(String key) {
        Parameters.Parameter<?> p = registered.get(Objects.requireNonNull(key, "key"));
        if (p == null) throw new IllegalArgumentException(unknownKeyMessage(key));
        return p;
    }

    /**
     * @param key a key
     * @return the registered parameter, if any
     */
    public Optional<Parameters.Parameter<?>> find(String key) { return Optional.ofNullable(registered.get(key)); }

    /** @return all registered parameters, sorted by key */
    public Collection<Parameters.Parameter<?>> all() { return List.copyOf(registered.values()); }

    /**
     * Finds settings that name no registered parameter: system properties and environment
     * variables under the given namespaces (e.g. {@code lpf.engine.}), typically typos.
     *
     * @param propertyNames  the names of the system properties set
     * @param variableNames  the names of the environment variables set
     * @param namespaces     key prefixes that belong to registered frameworks, e.g. {@code "lpf.engine."}
     * @return one message per unknown setting, naming the nearest registered key
     */
    public List<String> unknownSettings(Collection<String> propertyNames, Collection<String> variableNames,
                                        Collection<String> namespaces) {
        return unknown(propertyNames, variableNames, namespaces, false);
    }

    /**
     * {@link #unknownSettings} restricted to the settings that are near a registered key (edit
     * distance): the likely typos, which {@link org.lpf4j.Lpf#root()} refuses. Settings under
     * the namespaces that resemble no key (e.g. a module that is not installed here) are left
     * out. A system property of one segment after {@code lpf.} (as {@code lpf.capacty}) is also
     * checked against the registered keys of one segment ({@code lpf.capacity}, {@code lpf.debug}),
     * whatever the namespaces. Costs O(n · k · length²) for n unknown settings and k registered keys; nothing for
     * known ones beyond a map lookup.
     *
     * @param propertyNames the names of the system properties set
     * @param variableNames the names of the environment variables set
     * @param namespaces    key prefixes to check, e.g. {@code "lpf.engine."}
     * @return one message per misspelt setting, naming it and the nearest registered key
     */
    public List<String> misspeltSettings(Collection<String> propertyNames, Collection<String> variableNames,
                                         Collection<String> namespaces) {
        List<String> problems = unknown(propertyNames, variableNames, namespaces, true);
        List<String> topLevel = registered.keySet().stream().filter(ParameterRegistry::isTopLevel).toList();
        for (String name : propertyNames) {
            if (isTopLevel(name) && !registered.containsKey(name) && namespaces.stream().noneMatch(name::startsWith)) {
                // Stricter than for namespaced keys (other tools' lpf.x settings pass): lpf.capacty, lpf.debgu, lpf.engien.
                String near = Suggest.nearest(name, topLevel);
                if (near != null && Suggest.distance(name.toLowerCase(java.util.Locale.ROOT), near) <= Math.max(1, (name.length() - 4) / 4)) {
                    unknownSetting(problems, "system property " + name, near, true);
                }
            }
        }
        return problems;
    }

    /** @return whether {@code key} is {@code lpf.} and one segment */
    private static boolean isTopLevel(String key) {
        return key.startsWith("lpf.") && key.indexOf('.', 4) < 0 && key.length() > 4;
    }

    private List<String> unknown(Collection<String> propertyNames, Collection<String> variableNames,
                                 Collection<String> namespaces, boolean nearOnly) {
        List<String> problems = new ArrayList<>();
        for (String name : propertyNames) {
            if (namespaces.stream().anyMatch(name::startsWith) && !registered.containsKey(name)) {
                unknownSetting(problems, "system property " + name, Suggest.nearest(name, registered.keySet()), nearOnly);
            }
        }
        List<String> envNames = null;
        for (String var : variableNames) {
            boolean inNamespace = namespaces.stream().anyMatch(ns -> var.startsWith(Parameters.toEnvironmentName(ns)));
            if (!inNamespace) continue;
            if (envNames == null) {
                envNames = registered.values().stream().map(Parameters.Parameter::environmentVariable).toList();
            }
            if (!envNames.contains(var)) {
                unknownSetting(problems, "environment variable " + var, Suggest.nearest(var, envNames), nearOnly);
            }
        }
        return problems;
    }

    private static void unknownSetting(List<String> problems, String setting, String near, boolean nearOnly) {
        if (near == null && nearOnly) return;
        problems.add(setting + " names no parameter" + (near == null ? "" : "; did you mean " + near + "?"));
    }

    private String unknownKeyMessage(String key) {
        String near = Suggest.nearest(key, registered.keySet());
        return "unknown parameter " + key + (near != null ? "; did you mean " + near + "?"
                : "; see 'lpf info' for the " + registered.size() + " known parameters");
    }

    // ---- sources, for Parameter ---------------------------------------------------------------

    String programmatic(String key) { return programmatic.get(key); }

    String systemProperty(String key) { return systemProperties.apply(key); }

    String environment(String name) { return environment.apply(name); }
}
