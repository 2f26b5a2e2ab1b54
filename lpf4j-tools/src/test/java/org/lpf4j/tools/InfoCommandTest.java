package org.lpf4j.tools;

import org.lpf4j.spi.Components;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lpf info}, text and JSON, over fake modules (exact output) and over the installed ones. */
@Timeout(60)
class InfoCommandTest {
    /** A fake engine module: never asked for a root. */
    record FakeEngine(String name, Query answer) implements EngineProvider {
        @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }
        @Override public Version version() { return new Version(3, 2, 1); }
        @Override public void open(ModuleParameters p) {
            if (name.equals("sim")) p.integer("latency", 5, 0, 100, "simulated latency in us");
        }
        @Override public Query query() { return answer; }
        @Override public org.lpf4j.Context root() { throw new UnsupportedOperationException(); }
        @Override public int machineSize() { return 1; }
        @Override public java.util.SequencedMap<String, String> details() {
            java.util.SequencedMap<String, String> d = new java.util.LinkedHashMap<>();
            if (name.equals("sim")) {
                d.put("fabric", "none");
                d.put("latency", "5 \"us\"");
            }
            if (name.equals("broken")) throw new IllegalStateException("library vanished");
            return d;
        }
    }

    private final Map<String, String> env = new HashMap<>();

    private String info(String... args) {
        ParameterRegistry registry = new ParameterRegistry(env::get, k -> null);
        Components fake = new Components(registry, List.of(new FakeEngine("fabric", Query.decline("no fabric found")),
                new FakeEngine("sim", Query.run(20))));
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new InfoCommand(() -> fake));
        cl.setOut(new PrintWriter(out));
        assertEquals(0, cl.execute(args));
        return out.toString();
    }

    @Test
    void anInvalidPrioritySettingIsShownNotThrown() {
        env.put("LPF_ENGINE_SIM_PRIORITY", "abc");
        String text = info();
        assertTrue(text.contains("invalid priority setting: parameter lpf.engine.sim.priority = 'abc'"), text);
        assertTrue(text.contains("not an integer"), text);
        String json = info("--json");
        assertTrue(json.contains("invalid priority setting"), json);
    }

    @Test
    void textListsFrameworksModulesVersionsAndParameters() {
        env.put("LPF_ENGINE_SIM_LATENCY", "7");
        String text = info();
        assertEquals("""
                lpf4j 0.1.0, LPF specification 202000

                engine framework (API 1.0.0): sim selected [lpf.engine=(highest priority), default]
                  * sim 3.2.1 (engine API 1.0.0): can run, priority 20
                      fabric: none
                      latency: 5 "us"
                      lpf.engine.sim.priority = -1  [default; default -1; integer in [-1, 100]]  \
                selection priority of this module, 0..100; -1: the priority the module answers
                      lpf.engine.sim.latency = 7  [environment; default 5; integer in [0, 100]]  simulated latency in us
                    fabric 3.2.1 (engine API 1.0.0): cannot run: no fabric found
                      lpf.engine.fabric.priority = -1  [default; default -1; integer in [-1, 100]]  \
                selection priority of this module, 0..100; -1: the priority the module answers

                boot framework (API 1.0.0): no module selected: no usable boot module: none installed \
                [lpf.boot=(highest priority), default]
                  (no modules installed)

                coll framework (API 1.0.0): no module selected: no usable coll module: none installed \
                [lpf.coll=(highest priority), default]
                  (no modules installed)

                cr framework (API 1.0.0): no module selected: no usable cr module: none installed \
                [lpf.cr=(highest priority), default]
                  (no modules installed)

                other parameters:
                """, text);
    }

    @Test
    void textShowsInvalidSettingsAndUserPriorities() {
        env.put("LPF_ENGINE_SIM_LATENCY", "fast");
        env.put("LPF_ENGINE_SIM_PRIORITY", "70");
        String text = info();
        assertTrue(text.contains("  * sim 3.2.1 (engine API 1.0.0): can run, priority 70 (set by user)\n"), text);
        assertTrue(text.contains("      lpf.engine.sim.latency = INVALID  [environment; default 5; integer in [0, 100]]"), text);
        assertTrue(text.contains("        error: parameter lpf.engine.sim.latency = 'fast' (from environment"
                + " LPF_ENGINE_SIM_LATENCY): not an integer; expected integer in [0, 100]\n"), text);
    }

    @Test
    void jsonHasTheSameContent() {
        env.put("LPF_ENGINE", "fabric");
        String json = info("--json");
        String priority = "\"type\":\"integer in [-1, 100]\",\"default\":\"-1\",\"value\":\"-1\",\"source\":\"default\",";
        String priorityText = "\"description\":\"selection priority of this module, 0..100; -1: the priority the module answers\",\"error\":null}";
        String noModules = "\"selected\":null,\"error\":\"no usable %s module: none installed\",\"modules\":[]}";
        assertEquals("{\"lpf4j\":\"0.1.0\",\"specVersion\":202000,\"frameworks\":["
                + "{\"name\":\"engine\",\"apiVersion\":\"1.0.0\",\"choice\":{\"key\":\"lpf.engine\",\"type\":\"string\","
                + "\"default\":\"\",\"value\":\"fabric\",\"source\":\"environment\",\"environmentVariable\":\"LPF_ENGINE\","
                + "\"description\":\"the engine module to use; empty: the usable one of highest priority\",\"error\":null},"
                + "\"selected\":null,\"error\":\"lpf.engine=fabric (from environment): the engine module 'fabric' cannot run"
                + " here: no fabric found\",\"modules\":["
                + "{\"name\":\"sim\",\"version\":\"3.2.1\",\"apiVersion\":\"1.0.0\",\"canRun\":true,\"priority\":20,"
                + "\"priorityFromUser\":false,\"reason\":null,\"selected\":false,\"details\":{\"fabric\":\"none\",\"latency\":\"5 \\\"us\\\"\"},\"parameters\":["
                + "{\"key\":\"lpf.engine.sim.priority\"," + priority + "\"environmentVariable\":\"LPF_ENGINE_SIM_PRIORITY\"," + priorityText
                + ",{\"key\":\"lpf.engine.sim.latency\",\"type\":\"integer in [0, 100]\",\"default\":\"5\",\"value\":\"5\","
                + "\"source\":\"default\",\"environmentVariable\":\"LPF_ENGINE_SIM_LATENCY\",\"description\":\"simulated latency"
                + " in us\",\"error\":null}]},"
                + "{\"name\":\"fabric\",\"version\":\"3.2.1\",\"apiVersion\":\"1.0.0\",\"canRun\":false,\"priority\":-1,"
                + "\"priorityFromUser\":false,\"reason\":\"no fabric found\",\"selected\":false,\"details\":{},\"parameters\":["
                + "{\"key\":\"lpf.engine.fabric.priority\"," + priority + "\"environmentVariable\":\"LPF_ENGINE_FABRIC_PRIORITY\","
                + priorityText + "]}]},"
                + frameworkWithoutModules("boot") + String.format(noModules, "boot") + ","
                + frameworkWithoutModules("coll") + String.format(noModules, "coll") + ","
                + frameworkWithoutModules("cr") + String.format(noModules, "cr")
                + "],\"parameters\":[],\"problems\":[]}\n", json);
    }

    private static String frameworkWithoutModules(String f) {
        return "{\"name\":\"" + f + "\",\"apiVersion\":\"1.0.0\",\"choice\":{\"key\":\"lpf." + f + "\",\"type\":\"string\","
                + "\"default\":\"\",\"value\":\"\",\"source\":\"default\",\"environmentVariable\":\"LPF_" + f.toUpperCase()
                + "\",\"description\":\"the " + f + " module to use; empty: the usable one of highest priority\",\"error\":null},";
    }

    @Test
    void aModuleWhoseDetailsFailShowsTheFailure() {
        ParameterRegistry registry = new ParameterRegistry(env::get, k -> null);
        Components c = new Components(registry, List.of(new FakeEngine("broken", Query.run(5))));
        String text = InfoCommand.toText(InfoReport.of(c));
        assertTrue(text.contains("  * broken 3.2.1 (engine API 1.0.0): can run, priority 5\n"
                + "      details: unavailable: java.lang.IllegalStateException: library vanished\n"), text);
    }

    /** Text with every character class JSON must escape or carry: quotes, backslashes, controls, non-ASCII. */
    private static final String AWKWARD = "q\"b\\s/\nt\r\t\u0001\u001f é µs 𝄞 \u2028";

    @Test
    void jsonRoundTripsEveryFieldThroughAParser() throws Exception {
        InfoReport.ParameterInfo param = new InfoReport.ParameterInfo("lpf.engine.x." + AWKWARD, "t" + AWKWARD, "d" + AWKWARD,
                null, "s" + AWKWARD, "E" + AWKWARD, "desc" + AWKWARD, "err" + AWKWARD);
        java.util.SequencedMap<String, String> details = new java.util.LinkedHashMap<>();
        details.put("k" + AWKWARD, "v" + AWKWARD);
        details.put("second", "");
        InfoReport.ModuleInfo module = new InfoReport.ModuleInfo("m" + AWKWARD, "1.2.3", "1.0.0", false, -1, true,
                "why" + AWKWARD, true, details, List.of(param));
        InfoReport report = new InfoReport(List.of(new InfoReport.FrameworkInfo("f" + AWKWARD, "2.0.0", param, null,
                "e" + AWKWARD, List.of(module))), List.of(param), List.of("p" + AWKWARD));
        JsonNode root = new ObjectMapper().readTree(InfoCommand.toJson(report));

        assertEquals("0.1.0", root.get("lpf4j").textValue());
        assertEquals(202000, root.get("specVersion").intValue());
        JsonNode f = root.get("frameworks").get(0);
        assertEquals("f" + AWKWARD, f.get("name").textValue());
        assertEquals("2.0.0", f.get("apiVersion").textValue());
        assertParameter(param, f.get("choice"));
        assertTrue(f.get("selected").isNull());
        assertEquals("e" + AWKWARD, f.get("error").textValue());
        JsonNode m = f.get("modules").get(0);
        assertEquals("m" + AWKWARD, m.get("name").textValue());
        assertEquals("1.2.3", m.get("version").textValue());
        assertEquals("1.0.0", m.get("apiVersion").textValue());
        assertTrue(m.get("canRun").isBoolean() && !m.get("canRun").booleanValue());
        assertEquals(-1, m.get("priority").intValue());
        assertTrue(m.get("priorityFromUser").booleanValue());
        assertEquals("why" + AWKWARD, m.get("reason").textValue());
        assertTrue(m.get("selected").booleanValue());
        assertEquals(List.of("k" + AWKWARD, "second"), iterate(m.get("details").fieldNames()));
        assertEquals("v" + AWKWARD, m.get("details").get("k" + AWKWARD).textValue());
        assertEquals("", m.get("details").get("second").textValue());
        assertParameter(param, m.get("parameters").get(0));
        assertParameter(param, root.get("parameters").get(0));
        assertEquals("p" + AWKWARD, root.get("problems").get(0).textValue());
        assertEquals(List.of("lpf4j", "specVersion", "frameworks", "parameters", "problems"), iterate(root.fieldNames()));
    }

    private static void assertParameter(InfoReport.ParameterInfo expected, JsonNode actual) {
        assertEquals(List.of("key", "type", "default", "value", "source", "environmentVariable", "description", "error"),
                iterate(actual.fieldNames()));
        assertEquals(expected.key(), actual.get("key").textValue());
        assertEquals(expected.type(), actual.get("type").textValue());
        assertEquals(expected.defaultValue(), actual.get("default").textValue());
        assertTrue(actual.get("value").isNull(), actual.toString());
        assertEquals(expected.source(), actual.get("source").textValue());
        assertEquals(expected.environmentVariable(), actual.get("environmentVariable").textValue());
        assertEquals(expected.description(), actual.get("description").textValue());
        assertEquals(expected.error(), actual.get("error").textValue());
    }

    private static List<String> iterate(java.util.Iterator<String> names) {
        List<String> list = new java.util.ArrayList<>();
        names.forEachRemaining(list::add);
        return list;
    }

    @Test
    void jsonOfTheCommandParsesBack() throws Exception {
        env.put("LPF_ENGINE_SIM_LATENCY", "7");
        JsonNode root = new ObjectMapper().readTree(info("--json"));
        JsonNode sim = root.get("frameworks").get(0).get("modules").get(0);
        assertEquals("sim", sim.get("name").textValue());
        assertEquals("5 \"us\"", sim.get("details").get("latency").textValue());
        JsonNode latency = sim.get("parameters").get(1);
        assertEquals("lpf.engine.sim.latency", latency.get("key").textValue());
        assertEquals("7", latency.get("value").textValue());
        assertEquals("environment", latency.get("source").textValue());
    }

    @Test
    void installedModulesThroughTheLpfCommand() {
        Cli text = Cli.run("info", "--param", "lpf.engine.threads.spin=7").expect(0);
        assertTrue(text.out().contains("engine framework (API 1.0.0): threads selected [lpf.engine=(highest priority), default]\n"
                + "  * threads 0.1.0 (engine API 1.0.0): can run, priority 50\n"), text.out());
        assertTrue(text.out().contains("      lpf.engine.threads.procs = 8  [system property; default "), text.out());
        assertTrue(text.out().contains("      lpf.engine.threads.spin = 7  [programmatic; default -1;"), text.out());
        assertTrue(text.out().contains("    env 0.1.0 (boot API 1.0.0): cannot run: no launcher variables set"), text.out());
        assertTrue(text.out().contains("      lpf.debug = false  [default; default false; boolean]"), text.out());
        // The MPI engine's details: library, flavour and version without MPI_Init, thread level unknown.
        assertTrue(text.out().matches("(?s).*\n    mpi 0\\.1\\.0 \\(engine API 1\\.0\\.0\\): [^\n]*\n"
                + "      library: /[^\n]*/libmpi\\.so\\.40\n      flavour: Open MPI\n      version: Open MPI v4\\.[^\n]*\n"
                + "      thread level: not initialised\n.*"), text.out());
        Cli json = Cli.run("info", "--json").expect(0);
        assertTrue(json.out().matches("(?s).*\"name\":\"mpi\".*\"details\":\\{\"library\":\"/[^\"]*libmpi\\.so\\.40\","
                + "\"flavour\":\"Open MPI\",\"version\":\"Open MPI v4\\.[^\"]*\",\"thread level\":\"not initialised\","
                + "\"lpf run -p N starts\":\"mpirun[^\"]*\"}.*"), json.out());
        assertTrue(json.out().startsWith("{\"lpf4j\":\"0.1.0\",\"specVersion\":202000,\"frameworks\":[{\"name\":\"engine\""), json.out());
        assertTrue(json.out().contains("{\"key\":\"lpf.engine.threads.spin\",\"type\":\"integer in [-1, 2147483647]\","
                + "\"default\":\"-1\",\"value\":\"-1\",\"source\":\"default\""), json.out());
        Cli.run("info", "--param", "lpf.engine.threads.spni=1")
                .expectError(UsageException.EXIT_CODE, "did you mean lpf.engine.threads.spin?");
    }
}
