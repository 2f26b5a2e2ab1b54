package org.lpf4j.spi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The component registry (SSI's meta framework): finds the modules of every {@link Framework}
 * with {@link ServiceLoader}, opens each once (it registers its parameters), gives each a
 * {@code lpf.<framework>.<module>.priority} parameter, and selects one module per framework.
 *
 * <h2>Selection</h2>
 * If the user names a module ({@code lpf.<framework>}, e.g. {@code lpf.engine=mpi}), that module
 * is chosen; if it is not installed or declines to run, selection fails with an error naming the
 * reason — never a silent fallback. Otherwise every module is {@linkplain Component#query()
 * queried}; those that can run compete by priority (the module's answer, or the user's
 * {@code priority} parameter when set to 0..100), the highest wins and ties go to the name that
 * sorts first. Modules whose framework API version this lpf4j does not satisfy, or whose
 * {@code open} or {@code query} throws, are declined with that reason.
 *
 * <p>Immutable after construction and thread-safe; selecting re-queries the modules (cheap) so
 * that parameter changes take effect.
 */
public final class Components {
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");
    private static volatile Components installed;

    private final ParameterRegistry parameters;
    private final Map<Framework, List<Component>> modules = new EnumMap<>(Framework.class);
    private final Map<Framework, Parameters.Parameter<String>> choices = new EnumMap<>(Framework.class);
    private final Map<Component, Parameters.Parameter<Integer>> priorities = new IdentityHashMap<>();
    private final Map<Component, List<Parameters.Parameter<?>>> moduleParameters = new IdentityHashMap<>();
    private final Map<Component, String> openFailures = new IdentityHashMap<>();
    /** The {@code lpf.*} system property names last found free of misspellings, or {@code null}. */
    private volatile Set<String> validProperties;

    /**
     * What the registry concluded about one module.
     *
     * @param module   the module
     * @param canRun   whether it may be selected
     * @param priority the effective priority (0..100) if it can run, else -1
     * @param reason   why it cannot run, or {@code null}
     * @param priorityFromUser whether the priority comes from the user's {@code priority} parameter
     */
    public record Verdict(Component module, boolean canRun, int priority, String reason, boolean priorityFromUser) {}

    /**
     * Builds a registry over the given modules, opening each once into {@code parameters}.
     * Modules with a malformed or duplicate name are rejected.
     *
     * @param parameters where parameters are registered and resolved
     * @param found      the modules, of any frameworks
     * @throws IllegalArgumentException if two modules of one framework share a name, or a name is
     *                                  not letters, digits and '_'
     */
    public Components(ParameterRegistry parameters, List<? extends Component> found) {
        this.parameters = parameters;
        for (Framework f : Framework.values()) {
            modules.put(f, new ArrayList<>());
            choices.put(f, parameters.find(f.choiceKey()).map(Components::asString).orElseGet(() -> parameters.string(
                    f.choiceKey(), "", "the " + f.id() + " module to use; empty: the usable one of highest priority")));
        }
        for (Component c : found) {
            Framework f = c.framework();
            if (!NAME.matcher(c.name()).matches()) {
                throw new IllegalArgumentException(f + " module " + c.getClass().getName() + ": bad name '" + c.name() + "'");
            }
            for (Component other : modules.get(f)) {
                if (other.name().equals(c.name())) {
                    throw new IllegalArgumentException("two " + f + " modules named '" + c.name() + "': "
                            + other.getClass().getName() + " and " + c.getClass().getName());
                }
            }
            modules.get(f).add(c);
            open(c);
        }
        modules.values().forEach(list -> list.sort(Comparator.comparing(Component::name)));
    }

    @SuppressWarnings("unchecked")
    private static Parameters.Parameter<String> asString(Parameters.Parameter<?> p) {
        return (Parameters.Parameter<String>) p;
    }

    private void open(Component c) {
        ModuleParameters scope = new ModuleParameters(parameters, c.framework(), c.name());
        String priorityKey = scope.prefix() + "priority";
        Parameters.Parameter<?> existing = parameters.find(priorityKey).orElse(null);
        @SuppressWarnings("unchecked")
        Parameters.Parameter<Integer> priority = existing != null ? (Parameters.Parameter<Integer>) existing
                : parameters.integer(priorityKey, -1, -1, 100,
                "selection priority of this module, 0..100; -1: the priority the module answers");
        priorities.put(c, priority);
        try {
            c.open(scope);
        } catch (RuntimeException | LinkageError e) {
            openFailures.put(c, "open failed: " + e);
        }
        List<Parameters.Parameter<?>> own = new ArrayList<>();
        own.add(priority);
        own.addAll(scope.declared());
        moduleParameters.put(c, List.copyOf(own));
    }

    /**
     * @return the modules installed on the class and module path, opened into
     *         {@link ParameterRegistry#global()}; found once per JVM
     */
    public static Components installed() {
        Components c = installed;
        if (c == null) {
            synchronized (Components.class) {
                c = installed;
                if (c == null) {
                    java.util.Objects.requireNonNull(CoreParameters.DEBUG); // registers the core's own parameters
                    List<Component> found = new ArrayList<>();
                    for (Framework f : Framework.values()) {
                        ServiceLoader.load(f.serviceType(), Components.class.getClassLoader()).forEach(found::add);
                    }
                    installed = c = new Components(ParameterRegistry.global(), found);
                }
            }
        }
        return c;
    }

    /** @return the registry this component set registers and resolves parameters in */
    public ParameterRegistry parameters() { return parameters; }

    /**
     * @param framework a framework
     * @return its modules, sorted by name
     */
    public List<Component> modules(Framework framework) { return List.copyOf(modules.get(framework)); }

    /**
     * @param framework a framework
     * @return the parameter that names the user's explicit choice, {@code lpf.<framework>}
     */
    public Parameters.Parameter<String> choiceParameter(Framework framework) { return choices.get(framework); }

    /**
     * @param module an installed module
     * @return its parameters, its {@code priority} parameter first
     */
    public List<Parameters.Parameter<?>> parametersOf(Component module) {
        List<Parameters.Parameter<?>> p = moduleParameters.get(module);
        if (p == null) throw new IllegalArgumentException(module.name() + " is not a module of this registry");
        return p;
    }

    /**
     * Queries one module now.
     *
     * @param module an installed module
     * @return whether it can run and with what effective priority, or why not
     */
    public Verdict verdict(Component module) {
        String failure = openFailures.get(module);
        if (failure != null) return new Verdict(module, false, -1, failure, false);
        Framework f = module.framework();
        Version wanted = module.frameworkApiVersion();
        if (!wanted.satisfiedBy(f.apiVersion())) {
            return new Verdict(module, false, -1, "written for " + f + " API " + wanted + ", this lpf4j implements "
                    + f.apiVersion(), false);
        }
        Query q;
        try {
            q = module.query();
        } catch (RuntimeException | LinkageError e) {
            return new Verdict(module, false, -1, "query failed: " + e, false);
        }
        if (q == null) return new Verdict(module, false, -1, "query answered null", false);
        if (!q.canRun()) return new Verdict(module, false, -1, q.reason(), false);
        int user;
        try {
            user = priorities.get(module).get();
        } catch (IllegalArgumentException e) {
            return new Verdict(module, false, -1, "invalid priority setting: " + e.getMessage(), false);
        }
        return user >= 0 ? new Verdict(module, true, user, null, true) : new Verdict(module, true, q.priority(), null, false);
    }

    /**
     * @param framework a framework
     * @return the verdicts of all its modules in selection order: runnable ones by priority
     *         (highest first, ties by name), then the declined ones by name
     */
    public List<Verdict> verdicts(Framework framework) {
        List<Verdict> v = new ArrayList<>();
        for (Component c : modules.get(framework)) v.add(verdict(c));
        v.sort(Comparator.comparing((Verdict x) -> !x.canRun())
                .thenComparing(Comparator.comparingInt(Verdict::priority).reversed())
                .thenComparing(x -> x.module().name()));
        return v;
    }

    /**
     * Selects the module of a framework (see the class comment).
     *
     * @param framework a framework
     * @return the selected module
     * @throws IllegalArgumentException if the user's choice is not installed or cannot run here
     *                                  (the message names the reason and what is installed)
     * @throws IllegalStateException    if no module can run, listing why each declined
     */
    public Component select(Framework framework) {
        Parameters.Value<String> choice = choices.get(framework).resolve();
        String wanted = choice.value().trim();
        if (!wanted.isEmpty()) {
            String origin = framework.choiceKey() + "=" + wanted + " (from " + choice.source().label() + ")";
            for (Component c : modules.get(framework)) {
                if (c.name().equals(wanted)) {
                    Verdict v = verdict(c);
                    if (!v.canRun()) {
                        throw new IllegalArgumentException(origin + ": the " + framework + " module '" + wanted
                                + "' cannot run here: " + v.reason());
                    }
                    return c;
                }
            }
            List<String> names = modules.get(framework).stream().map(Component::name).toList();
            String near = Suggest.nearest(wanted, names);
            throw new IllegalArgumentException(origin + ": no " + framework + " module named '" + wanted
                    + "' is installed; installed: " + names + (near == null ? "" : "; did you mean '" + near + "'?"));
        }
        List<Verdict> verdicts = verdicts(framework);
        if (!verdicts.isEmpty() && verdicts.get(0).canRun()) return verdicts.get(0).module();
        throw new IllegalStateException("no usable " + framework + " module: " + (verdicts.isEmpty()
                ? "none installed" + (framework == Framework.ENGINE
                        ? " (the core has no engine: put an engine module, e.g. lpf4j-engine-threads, on the class or module path)" : "")
                : verdicts.stream().map(v -> v.module().name() + " (" + v.reason() + ")").toList()));
    }

    /**
     * {@link #select(Framework)} typed by the framework's service interface.
     *
     * @param framework a framework
     * @param type      its service interface
     * @param <T>       that type
     * @return the selected module
     */
    public <T extends Component> T select(Framework framework, Class<T> type) {
        return type.cast(select(framework));
    }

    /**
     * @param framework a framework
     * @param name      a module name
     * @return that module
     * @throws IllegalArgumentException if it is not installed
     */
    public Component byName(Framework framework, String name) {
        for (Component c : modules.get(framework)) if (c.name().equals(name)) return c;
        throw new IllegalArgumentException("no " + framework + " module named '" + name + "' is installed; installed: "
                + modules.get(framework).stream().map(Component::name).toList());
    }

    /**
     * Checks the system properties and environment variables set for this JVM against the
     * registered parameters of the frameworks.
     *
     * @return one message per setting under {@code lpf.engine.}, {@code lpf.boot.},
     *         {@code lpf.coll.} or {@code lpf.cr.} that names no parameter (typically a typo),
     *         with the nearest known key; empty for a registry other than the global one (its
     *         lookups cannot be listed)
     */
    public List<String> unknownSettings() {
        if (parameters != ParameterRegistry.global()) return List.of();
        return parameters.unknownSettings(System.getProperties().stringPropertyNames(), System.getenv().keySet(),
                frameworkNamespaces());
    }

    /** The key prefixes of the frameworks ({@code lpf.engine.}, ...) and {@code lpf.debug}. */
    private static List<String> checkedNamespaces() {
        List<String> namespaces = frameworkNamespaces();
        namespaces.add("lpf.debug");
        namespaces.add("lpf.capacity");
        return namespaces;
    }

    private static List<String> frameworkNamespaces() {
        List<String> namespaces = new ArrayList<>();
        for (Framework f : Framework.values()) namespaces.add(f.choiceKey() + ".");
        return namespaces;
    }

    /**
     * Refuses misspelt settings: a system property ({@code lpf.*}) or environment variable
     * ({@code LPF_*}) under {@code lpf.engine.}, {@code lpf.boot.}, {@code lpf.coll.},
     * {@code lpf.cr.}, {@code lpf.debug} or {@code lpf.capacity}, or a property {@code lpf.x} of one
     * segment, that names no registered parameter but is near one
     * ({@link ParameterRegistry#misspeltSettings}; {@code lpf.capacty}, {@code lpf.debgu}). Unknown settings resembling no key (say, of
     * a module not installed here) and {@code lpf.*} settings of other tools pass; {@code lpf info}
     * lists them. {@link org.lpf4j.Lpf#root()} and {@link org.lpf4j.Lpf#hook} call this. Costs a
     * scan of the system property names; the full check runs only when the set of {@code lpf.*}
     * property names differs from the last one found valid (the environment is fixed per JVM).
     * Does nothing for a registry other than the global one.
     *
     * @throws IllegalArgumentException naming each misspelt setting and the nearest known key
     */
    public void requireNoMisspeltSettings() {
        if (parameters != ParameterRegistry.global()) return;
        Set<String> names = new HashSet<>();
        for (Object key : System.getProperties().keySet()) {
            if (key instanceof String k && k.startsWith("lpf.")) names.add(k);
        }
        if (names.equals(validProperties)) return;
        List<String> problems = parameters.misspeltSettings(names, lpfVariables(), checkedNamespaces());
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems) + " (settings under lpf.engine., lpf.boot., "
                    + "lpf.coll., lpf.cr., lpf.debug and lpf.capacity must name a parameter; 'lpf info' lists them)");
        }
        validProperties = names;
    }

    private static List<String> lpfVariables() {
        return System.getenv().keySet().stream().filter(v -> v.startsWith("LPF_")).toList();
    }
}
