package org.lpf4j.tools;

import org.lpf4j.Lpf;
import org.lpf4j.spi.Components;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * {@code lpf info [--json] [--engine E] [--param k=v]...}: the component frameworks, their
 * modules and versions, whether each module can run here (and why not), which one is selected,
 * and every parameter with its default, current value and where that value comes from (as
 * {@code laminfo} does for LAM/MPI), and the probe cache: its directory and, per engine and process
 * count, when the cached g and l were measured. {@code --engine} and {@code --param} show how a setting
 * would resolve. {@code --json} prints the same as one JSON object for tools.
 *
 * <p>Exit status 0, also when a framework has no usable module or a setting is invalid (the
 * report says so); {@value UsageException#EXIT_CODE} for a bad option.
 */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Shows frameworks, modules, versions and parameters, and why each module can or cannot run here.")
public class InfoCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--json", description = "print one JSON object instead of text")
    boolean json;

    @Mixin EngineOptions engineOptions;

    private final Supplier<Components> components;

    /** For picocli: describes the installed modules. */
    public InfoCommand() { this(Components::installed); }

    /** @param components the registry to describe (tests pass one of fake modules) */
    InfoCommand(Supplier<Components> components) { this.components = Objects.requireNonNull(components); }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Objects.requireNonNull(Lpf.DEBUG); // the core's own parameters are listed too
        InfoReport report;
        try (ParameterScope ignored = engineOptions.apply("lpf info", null)) {
            report = InfoReport.of(components.get());
        }
        out.print(json ? toJson(report) + "\n" : toText(report));
        out.flush();
        return 0;
    }

    // ---- text ----------------------------------------------------------------------------------

    static String toText(InfoReport r) {
        StringBuilder b = new StringBuilder("lpf4j 0.1.0, LPF specification " + Lpf.SPEC_VERSION + "\n");
        for (InfoReport.FrameworkInfo f : r.frameworks()) {
            b.append('\n').append(f.name()).append(" framework (API ").append(f.apiVersion()).append("): ")
                    .append(f.selected() != null ? f.selected() + " selected" : "no module selected: " + f.error())
                    .append(" [").append(f.choice().key()).append('=').append(f.choice().value() == null ? "?"
                            : f.choice().value().isEmpty() ? "(highest priority)" : f.choice().value())
                    .append(", ").append(f.choice().source()).append("]\n");
            if (f.modules().isEmpty()) b.append("  (no modules installed)\n");
            for (InfoReport.ModuleInfo m : f.modules()) {
                b.append(m.selected() ? "  * " : "    ").append(m.name()).append(' ').append(m.version())
                        .append(" (").append(f.name()).append(" API ").append(m.apiVersion()).append("): ")
                        .append(m.canRun() ? "can run, priority " + m.priority() + (m.priorityFromUser() ? " (set by user)" : "")
                                : "cannot run: " + m.reason()).append('\n');
                m.details().forEach((k, v) -> b.append("      ").append(k).append(": ").append(v).append('\n'));
                for (InfoReport.ParameterInfo p : m.parameters()) parameterLine(b, p);
            }
        }
        InfoReport.ProbeCacheInfo cache = r.probeCache();
        if (cache != null) probeCache(b, cache);
        b.append("\nother parameters:\n");
        for (InfoReport.ParameterInfo p : r.others()) parameterLine(b, p);
        if (!r.problems().isEmpty()) {
            b.append("\nproblems:\n");
            for (String p : r.problems()) b.append("    ").append(p).append('\n');
        }
        return b.toString();
    }

    /** The probe cache: its directory and, per engine and process count, when its figures were measured. */
    private static void probeCache(StringBuilder b, InfoReport.ProbeCacheInfo cache) {
        b.append("\nprobe cache (lpf.probe.cache=").append(cache.mode()).append("): ").append(cache.directory()).append('\n');
        if (cache.entries().isEmpty()) b.append("    no cached measurement: the first probe() per process count measures; lpf probe writes one\n");
        for (InfoReport.CachedProbe e : cache.entries()) {
            b.append("    ").append(e.engine()).append(" p=").append(e.p()).append(": measured ").append(e.measured())
                    .append(e.warnings() > 0 ? ", " + e.warnings() + " unreliable fit(s)" : "").append(", ")
                    .append(e.file()).append('\n');
        }
    }

    private static void parameterLine(StringBuilder b, InfoReport.ParameterInfo p) {
        b.append("      ").append(p.key()).append(" = ").append(p.value() == null ? "INVALID" : p.value())
                .append("  [").append(p.source()).append("; default ").append(p.defaultValue()).append("; ")
                .append(p.type()).append("]  ").append(p.description()).append('\n');
        if (p.error() != null) b.append("        error: ").append(p.error()).append('\n');
    }

    // ---- JSON ----------------------------------------------------------------------------------

    /** One factory for the command's life: Jackson factories are thread-safe and meant to be shared. */
    private static final JsonFactory JSON = JsonFactory.builder().build();

    /**
     * @param r the report
     * @return the report as one JSON object (no trailing newline): keys in the order of the text
     *         report, absent values as {@code null}, strings escaped by Jackson (non-ASCII as is)
     */
    static String toJson(InfoReport r) {
        StringWriter text = new StringWriter();
        try (JsonGenerator j = JSON.createGenerator(text)) {
            j.writeStartObject();
            j.writeStringField("lpf4j", "0.1.0");
            j.writeNumberField("specVersion", Lpf.SPEC_VERSION);
            j.writeArrayFieldStart("frameworks");
            for (InfoReport.FrameworkInfo f : r.frameworks()) framework(j, f);
            j.writeEndArray();
            if (r.probeCache() != null) probeCache(j, r.probeCache());
            parameters(j, "parameters", r.others());
            j.writeArrayFieldStart("problems");
            for (String p : r.problems()) j.writeString(p);
            j.writeEndArray();
            j.writeEndObject();
        } catch (IOException e) { // a StringWriter does not fail
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    private static void probeCache(JsonGenerator j, InfoReport.ProbeCacheInfo cache) throws IOException {
        j.writeObjectFieldStart("probeCache");
        j.writeStringField("mode", cache.mode());
        j.writeStringField("directory", cache.directory());
        j.writeArrayFieldStart("entries");
        for (InfoReport.CachedProbe e : cache.entries()) {
            j.writeStartObject();
            j.writeStringField("engine", e.engine());
            j.writeNumberField("p", e.p());
            j.writeStringField("file", e.file());
            j.writeStringField("measured", e.measured());
            j.writeNumberField("warnings", e.warnings());
            j.writeEndObject();
        }
        j.writeEndArray();
        j.writeEndObject();
    }

    private static void framework(JsonGenerator j, InfoReport.FrameworkInfo f) throws IOException {
        j.writeStartObject();
        j.writeStringField("name", f.name());
        j.writeStringField("apiVersion", f.apiVersion());
        j.writeFieldName("choice");
        parameter(j, f.choice());
        j.writeStringField("selected", f.selected());
        j.writeStringField("error", f.error());
        j.writeArrayFieldStart("modules");
        for (InfoReport.ModuleInfo m : f.modules()) {
            j.writeStartObject();
            j.writeStringField("name", m.name());
            j.writeStringField("version", m.version());
            j.writeStringField("apiVersion", m.apiVersion());
            j.writeBooleanField("canRun", m.canRun());
            j.writeNumberField("priority", m.priority());
            j.writeBooleanField("priorityFromUser", m.priorityFromUser());
            j.writeStringField("reason", m.reason());
            j.writeBooleanField("selected", m.selected());
            j.writeObjectFieldStart("details");
            for (var d : m.details().entrySet()) j.writeStringField(d.getKey(), d.getValue());
            j.writeEndObject();
            parameters(j, "parameters", m.parameters());
            j.writeEndObject();
        }
        j.writeEndArray();
        j.writeEndObject();
    }

    private static void parameters(JsonGenerator j, String name, List<InfoReport.ParameterInfo> list) throws IOException {
        j.writeArrayFieldStart(name);
        for (InfoReport.ParameterInfo p : list) parameter(j, p);
        j.writeEndArray();
    }

    private static void parameter(JsonGenerator j, InfoReport.ParameterInfo p) throws IOException {
        j.writeStartObject();
        j.writeStringField("key", p.key());
        j.writeStringField("type", p.type());
        j.writeStringField("default", p.defaultValue());
        j.writeStringField("value", p.value());
        j.writeStringField("source", p.source());
        j.writeStringField("environmentVariable", p.environmentVariable());
        j.writeStringField("description", p.description());
        j.writeStringField("error", p.error());
        j.writeEndObject();
    }
}
