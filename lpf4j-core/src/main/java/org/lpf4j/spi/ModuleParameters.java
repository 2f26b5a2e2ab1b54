package org.lpf4j.spi;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@link Component#open} registers its parameters with: a view of a
 * {@link ParameterRegistry} scoped to one module, so a parameter {@code "spin"} of engine
 * {@code threads} gets the key {@code lpf.engine.threads.spin}. Remembers which parameters belong
 * to the module (for {@code lpf info}).
 */
public final class ModuleParameters {
    private final ParameterRegistry registry;
    private final String prefix;
    private final List<Parameters.Parameter<?>> declared = new ArrayList<>();

    ModuleParameters(ParameterRegistry registry, Framework framework, String module) {
        this.registry = registry;
        this.prefix = "lpf." + framework.id() + "." + module + ".";
    }

    /** @return the key prefix of this module, {@code lpf.<framework>.<module>.} */
    public String prefix() { return prefix; }

    /** @return the registry the parameters go to (the global one in production) */
    public ParameterRegistry registry() { return registry; }

    /**
     * @param name         the parameter's name within the module
     * @param defaultValue the default
     * @param min          smallest valid value
     * @param max          largest valid value
     * @param description  what it does
     * @return the registered parameter {@code <prefix><name>}
     */
    public Parameters.Parameter<Integer> integer(String name, int defaultValue, int min, int max, String description) {
        return keep(registry.integer(prefix + name, defaultValue, min, max, description));
    }

    /**
     * @param name         the parameter's name within the module
     * @param defaultValue the default
     * @param description  what it does
     * @return the registered parameter
     */
    public Parameters.Parameter<Boolean> bool(String name, boolean defaultValue, String description) {
        return keep(registry.bool(prefix + name, defaultValue, description));
    }

    /**
     * @param name         the parameter's name within the module
     * @param defaultValue the default
     * @param description  what it does
     * @return the registered parameter
     */
    public Parameters.Parameter<String> string(String name, String defaultValue, String description) {
        return keep(registry.string(prefix + name, defaultValue, description));
    }

    /**
     * @param name         the parameter's name within the module
     * @param defaultValue the default, one of {@code allowed}
     * @param allowed      the valid values
     * @param description  what it does
     * @return the registered parameter
     */
    public Parameters.Parameter<String> choice(String name, String defaultValue, List<String> allowed, String description) {
        return keep(registry.choice(prefix + name, defaultValue, allowed, description));
    }

    /**
     * Claims a parameter the module declared statically (before any module was opened), so that
     * {@code lpf info} lists it under the module.
     *
     * @param parameter a parameter of this registry whose key starts with {@link #prefix()}
     * @throws IllegalArgumentException if its key is outside this module's namespace or it belongs
     *                                  to another registry
     */
    public void adopt(Parameters.Parameter<?> parameter) {
        if (!parameter.key().startsWith(prefix) || parameter.registry() != registry) {
            throw new IllegalArgumentException("adopt(" + parameter.key() + "): not a parameter of " + prefix + "* in this registry");
        }
        keep(parameter);
    }

    private <T> Parameters.Parameter<T> keep(Parameters.Parameter<T> p) {
        declared.add(p);
        return p;
    }

    List<Parameters.Parameter<?>> declared() { return List.copyOf(declared); }
}
