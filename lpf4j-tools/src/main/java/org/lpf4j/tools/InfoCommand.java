package org.lpf4j.tools;

import org.lpf4j.Lpf;
import org.lpf4j.spi.Components;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * {@code lpf info [--json] [--engine E] [--param k=v]...}: the component frameworks, their
 * modules and versions, whether each module can run here (and why not), which one is selected,
 * and every parameter with its default, current value and where that value comes from (as
 * {@code laminfo} does for LAM/MPI). {@code --engine} and {@code --param} show how a setting
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
        b.append("\nother parameters:\n");
        for (InfoReport.ParameterInfo p : r.others()) parameterLine(b, p);
        if (!r.problems().isEmpty()) {
            b.append("\nproblems:\n");
            for (String p : r.problems()) b.append("    ").append(p).append('\n');
        }
        return b.toString();
    }

    private static void parameterLine(StringBuilder b, InfoReport.ParameterInfo p) {
        b.append("      ").append(p.key()).append(" = ").append(p.value() == null ? "INVALID" : p.value())
                .append("  [").append(p.source()).append("; default ").append(p.defaultValue()).append("; ")
                .append(p.type()).append("]  ").append(p.description()).append('\n');
        if (p.error() != null) b.append("        error: ").append(p.error()).append('\n');
    }

    // ---- JSON ----------------------------------------------------------------------------------

    static String toJson(InfoReport r) {
        Json j = new Json();
        j.open('{').field("lpf4j", "0.1.0").key("specVersion").raw(Long.toString(Lpf.SPEC_VERSION)).key("frameworks").open('[');
        for (InfoReport.FrameworkInfo f : r.frameworks()) {
            j.open('{').field("name", f.name()).field("apiVersion", f.apiVersion()).key("choice");
            parameter(j, f.choice());
            j.field("selected", f.selected()).field("error", f.error()).key("modules").open('[');
            for (InfoReport.ModuleInfo m : f.modules()) {
                j.open('{').field("name", m.name()).field("version", m.version()).field("apiVersion", m.apiVersion())
                        .key("canRun").raw(Boolean.toString(m.canRun())).key("priority").raw(Integer.toString(m.priority()))
                        .key("priorityFromUser").raw(Boolean.toString(m.priorityFromUser())).field("reason", m.reason())
                        .key("selected").raw(Boolean.toString(m.selected())).key("details").open('{');
                m.details().forEach(j::field);
                j.close('}').key("parameters");
                parameters(j, m.parameters());
                j.close('}');
            }
            j.close(']').close('}');
        }
        j.close(']').key("parameters");
        parameters(j, r.others());
        j.key("problems").open('[');
        for (String p : r.problems()) j.value(p);
        return j.close(']').close('}').toString();
    }

    private static void parameters(Json j, List<InfoReport.ParameterInfo> list) {
        j.open('[');
        for (InfoReport.ParameterInfo p : list) parameter(j, p);
        j.close(']');
    }

    private static void parameter(Json j, InfoReport.ParameterInfo p) {
        j.open('{').field("key", p.key()).field("type", p.type()).field("default", p.defaultValue())
                .field("value", p.value()).field("source", p.source()).field("environmentVariable", p.environmentVariable())
                .field("description", p.description()).field("error", p.error()).close('}');
    }

    /** A minimal JSON writer: objects, arrays, strings (escaped), nulls and literal numbers/booleans. */
    static final class Json {
        private final StringBuilder b = new StringBuilder();
        private boolean needComma;

        Json open(char c) { separate(); b.append(c); needComma = false; return this; }

        Json close(char c) { b.append(c); needComma = true; return this; }

        Json key(String k) { separate(); string(k); b.append(':'); needComma = false; return this; }

        Json field(String k, String v) { return key(k).value(v); }

        Json value(String v) {
            separate();
            if (v == null) b.append("null"); else string(v);
            needComma = true;
            return this;
        }

        Json raw(String literal) { separate(); b.append(literal); needComma = true; return this; }

        private void separate() { if (needComma) b.append(','); }

        private void string(String s) {
            b.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> {
                        if (c < 0x20) b.append(String.format("\\u%04x", (int) c)); else b.append(c);
                    }
                }
            }
            b.append('"');
        }

        @Override public String toString() { return b.toString(); }
    }
}
