package org.lpf4j.tools;

import org.lpf4j.spi.Component;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.Parameters;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * What {@code lpf info} shows, read from a {@link Components} registry: per framework its modules
 * (versions, whether they can run here and why not, which one is selected, what they tell about themselves) with their parameters,
 * then the parameters of no module, then the settings that name no parameter. Built once; costs a
 * query of every module and a resolution of every parameter. Never fails for bad settings: an
 * invalid value shows as the parameter's error (and, for a {@code priority}, as the module's
 * reason for not running).
 *
 * @param frameworks the frameworks in {@link Framework} order
 * @param others     parameters that belong to no module ({@code lpf.debug}, {@code lpf.engine}, ...)
 * @param problems   settings that name no parameter, with the nearest known key
 * @param probeCache the disk cache of measured g and l on this machine, or {@code null} when the
 *                   registry described does not know its parameters (an isolated registry of tests)
 */
record InfoReport(List<FrameworkInfo> frameworks, List<ParameterInfo> others, List<String> problems,
                  ProbeCacheInfo probeCache) {

    /** A report without a probe cache section (tests). */
    InfoReport(List<FrameworkInfo> frameworks, List<ParameterInfo> others, List<String> problems) {
        this(frameworks, others, problems, null);
    }

    /**
     * The probe cache ({@link org.lpf4j.spi.kit.ProbeCache}).
     *
     * @param mode      {@code lpf.probe.cache}
     * @param directory this machine's directory of it
     * @param entries   the usable measurements in it
     */
    record ProbeCacheInfo(String mode, String directory, List<CachedProbe> entries) {
        /** @return the cache as it is now (reads every file in the directory) */
        static ProbeCacheInfo now() {
            String mode;
            try {
                mode = org.lpf4j.spi.kit.ProbeCache.mode();
            } catch (RuntimeException e) {
                mode = "INVALID (" + e.getMessage() + ")";
            }
            List<CachedProbe> list = new ArrayList<>();
            for (var e : org.lpf4j.spi.kit.ProbeCache.entries()) {
                list.add(new CachedProbe(e.engine(), e.p(), e.file().toString(), e.measured().toString(),
                        e.fit().warnings().size()));
            }
            return new ProbeCacheInfo(mode, org.lpf4j.spi.kit.ProbeCache.directory().toString(), List.copyOf(list));
        }
    }

    /**
     * @param engine   the engine's cache key
     * @param p        processes measured
     * @param file     the file
     * @param measured when (ISO-8601, UTC)
     * @param warnings how many of its fits were unreliable
     */
    record CachedProbe(String engine, int p, String file, String measured, int warnings) {}

    /**
     * @param name       e.g. {@code engine}
     * @param apiVersion the framework API this lpf4j implements
     * @param choice     the {@code lpf.<framework>} parameter
     * @param selected   the selected module's name, or {@code null}
     * @param error      why selection failed, or {@code null}
     * @param modules    in selection order
     */
    record FrameworkInfo(String name, String apiVersion, ParameterInfo choice, String selected, String error,
                         List<ModuleInfo> modules) {}

    /**
     * @param name             module name
     * @param version          its own version
     * @param apiVersion       the framework API version it was written against
     * @param canRun           whether it can run here
     * @param priority         its effective priority, -1 if declined
     * @param priorityFromUser whether that priority is the user's {@code priority} parameter
     * @param reason           why it cannot run, or {@code null}
     * @param selected         whether it is the framework's selection
     * @param details          what the module tells about itself ({@link Component#details()}), in its order
     * @param parameters       its parameters
     */
    record ModuleInfo(String name, String version, String apiVersion, boolean canRun, int priority,
                      boolean priorityFromUser, String reason, boolean selected, SequencedMap<String, String> details,
                      List<ParameterInfo> parameters) {}

    /**
     * @param key                 the key
     * @param type                the values it takes
     * @param defaultValue        the default, as text
     * @param value               the current value as text, or {@code null} if the setting is invalid
     * @param source              where the value comes from ({@link Parameters.Source#label()})
     * @param environmentVariable the variable that may set it
     * @param description         what it does
     * @param error               why the setting is invalid, or {@code null}
     */
    record ParameterInfo(String key, String type, String defaultValue, String value, String source,
                         String environmentVariable, String description, String error) {}

    /**
     * @param components the registry to describe
     * @return the report
     */
    static InfoReport of(Components components) {
        Map<Parameters.Parameter<?>, Boolean> owned = new IdentityHashMap<>();
        List<FrameworkInfo> frameworks = new ArrayList<>();
        for (Framework f : Framework.values()) {
            String selected = null, error = null;
            try {
                selected = components.select(f).name();
            } catch (RuntimeException e) {
                error = e.getMessage();
            }
            List<ModuleInfo> modules = new ArrayList<>();
            List<Components.Verdict> verdicts;
            try {
                verdicts = components.verdicts(f);
            } catch (RuntimeException e) { // a module's misbehaviour must not cost the whole report
                verdicts = List.of();
                error = (error == null ? "" : error + "; ") + "cannot query the modules: " + e;
            }
            for (Components.Verdict v : verdicts) {
                Component m = v.module();
                List<ParameterInfo> params = new ArrayList<>();
                for (Parameters.Parameter<?> p : components.parametersOf(m)) {
                    owned.put(p, true);
                    params.add(parameter(p));
                }
                modules.add(new ModuleInfo(m.name(), m.version().toString(), m.frameworkApiVersion().toString(),
                        v.canRun(), v.priority(), v.priorityFromUser(), v.reason(), m.name().equals(selected), details(m), params));
            }
            Parameters.Parameter<String> choice = components.choiceParameter(f);
            owned.put(choice, true);
            frameworks.add(new FrameworkInfo(f.id(), f.apiVersion().toString(), parameter(choice), selected, error, modules));
        }
        List<ParameterInfo> others = new ArrayList<>();
        for (Parameters.Parameter<?> p : components.parameters().all()) {
            if (!owned.containsKey(p)) others.add(parameter(p));
        }
        // The probe cache reads the process-wide parameters: shown for a registry that has them.
        ProbeCacheInfo cache = components.parameters().find(org.lpf4j.spi.CoreParameters.PROBE_CACHE.key()).isPresent()
                ? ProbeCacheInfo.now() : null;
        return new InfoReport(frameworks, others, components.unknownSettings(), cache);
    }

    /** A module's details; a module that fails to give them shows the failure instead of costing the report. */
    private static SequencedMap<String, String> details(Component m) {
        try {
            SequencedMap<String, String> d = m.details();
            return d == null ? new LinkedHashMap<>() : new LinkedHashMap<>(d);
        } catch (RuntimeException | LinkageError e) {
            SequencedMap<String, String> d = new LinkedHashMap<>();
            d.put("details", "unavailable: " + e);
            return d;
        }
    }

    private static ParameterInfo parameter(Parameters.Parameter<?> p) {
        String value = null, error = null, source;
        try {
            Parameters.Value<?> v = p.resolve();
            value = String.valueOf(v.value());
            // Secrets (lpf.boot.tcp.key) are shown as set or not, never printed.
            if (p.key().endsWith(".key") && !value.isEmpty()) value = "(set, " + value.length() + " characters, hidden)";
            source = v.source().label();
        } catch (IllegalArgumentException e) {
            error = e.getMessage();
            source = p.source().label();
        }
        return new ParameterInfo(p.key(), p.type(), String.valueOf(p.defaultValue()), value, source,
                p.environmentVariable(), p.description(), error);
    }
}
