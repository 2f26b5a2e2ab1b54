package org.lpf4j.spi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Module selection with test-only fake modules in an isolated registry. */
@Timeout(10)
class ComponentsTest {
    private final Map<String, String> env = new HashMap<>();
    private final ParameterRegistry registry = new ParameterRegistry(env::get, k -> null);

    /** A fake coll module: answers what it is told. */
    static class Fake implements CollModule {
        final String name;
        final Query answer;
        final Version api;
        int opened;
        Parameters.Parameter<Integer> knob;

        Fake(String name, Query answer) { this(name, answer, new Version(1, 0, 3)); }

        Fake(String name, Query answer, Version api) {
            this.name = name;
            this.answer = answer;
            this.api = api;
        }

        @Override public String name() { return name; }
        @Override public Version frameworkApiVersion() { return api; }
        @Override public Version version() { return new Version(2, 1, 0); }
        @Override public void open(ModuleParameters p) { opened++; knob = p.integer("knob", 4, 0, 8, "a knob"); }
        @Override public Query query() { return answer; }
        @Override public String choose(String operation, Map<String, Double> predictedSeconds) { return name; }
    }

    private Components of(Component... modules) { return new Components(registry, List.of(modules)); }

    @Test
    void highestPriorityWins() {
        Fake low = new Fake("alpha", Query.run(10)), high = new Fake("beta", Query.run(60));
        Components c = of(low, high);
        assertSame(high, c.select(Framework.COLL));
        assertEquals(List.of(high, low), c.verdicts(Framework.COLL).stream().map(Components.Verdict::module).toList());
    }

    @Test
    void tiesBreakByName() {
        Fake b = new Fake("bravo", Query.run(40)), a = new Fake("alpha", Query.run(40));
        assertSame(a, of(b, a).select(Framework.COLL));
    }

    @Test
    void declinedModulesAreNeverSelectedAndKeepTheirReason() {
        Fake no = new Fake("zeta", Query.decline("needs a GPU")), yes = new Fake("alpha", Query.run(0));
        Components c = of(no, yes);
        assertSame(yes, c.select(Framework.COLL));
        Components.Verdict v = c.verdict(no);
        assertFalse(v.canRun());
        assertEquals("needs a GPU", v.reason());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> of(new Fake("zeta", Query.decline("needs a GPU")))
                .select(Framework.COLL));
        assertEquals("no usable coll module: [zeta (needs a GPU)]", e.getMessage());
    }

    @Test
    void explicitChoiceWinsOverPriority() {
        Fake low = new Fake("alpha", Query.run(1)), high = new Fake("beta", Query.run(99));
        Components c = of(low, high);
        env.put("LPF_COLL", "alpha");
        assertSame(low, c.select(Framework.COLL));
    }

    @Test
    void explicitChoiceThatCannotRunIsAnErrorNotAFallback() {
        Fake no = new Fake("gpu", Query.decline("no CUDA device")), yes = new Fake("alpha", Query.run(50));
        Components c = of(no, yes);
        registry.set("lpf.coll", "gpu");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.select(Framework.COLL));
        assertEquals("lpf.coll=gpu (from programmatic): the coll module 'gpu' cannot run here: no CUDA device", e.getMessage());
    }

    @Test
    void explicitChoiceNotInstalledSuggestsTheNearestName() {
        Components c = of(new Fake("alpha", Query.run(50)), new Fake("beta", Query.run(50)));
        registry.set("lpf.coll", "alhpa");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.select(Framework.COLL));
        assertEquals("lpf.coll=alhpa (from programmatic): no coll module named 'alhpa' is installed; installed:"
                + " [alpha, beta]; did you mean 'alpha'?", e.getMessage());
    }

    @Test
    void userPriorityParameterOverridesTheAnswer() {
        Fake a = new Fake("alpha", Query.run(10)), b = new Fake("beta", Query.run(60));
        Components c = of(a, b);
        env.put("LPF_COLL_ALPHA_PRIORITY", "90");
        assertSame(a, c.select(Framework.COLL));
        assertTrue(c.verdict(a).priorityFromUser());
        assertEquals(90, c.verdict(a).priority());
    }

    @Test
    void anInvalidUserPriorityDeclinesTheModuleNamingTheSetting() {
        Fake a = new Fake("alpha", Query.run(90)), b = new Fake("beta", Query.run(10));
        Components c = of(a, b);
        env.put("LPF_COLL_ALPHA_PRIORITY", "abc");
        Components.Verdict v = c.verdict(a);
        assertFalse(v.canRun());
        assertTrue(v.reason().startsWith("invalid priority setting: parameter lpf.coll.alpha.priority = 'abc'")
                && v.reason().contains("not an integer"), v.reason());
        assertSame(b, c.select(Framework.COLL));
        assertEquals(List.of(b, a), c.verdicts(Framework.COLL).stream().map(Components.Verdict::module).toList());
    }

    @Test
    void openRegistersParametersOnceUnderTheModulesPrefix() {
        Fake a = new Fake("alpha", Query.run(10));
        Components c = of(a);
        assertEquals(1, a.opened);
        assertEquals("lpf.coll.alpha.knob", a.knob.key());
        assertEquals(List.of("lpf.coll.alpha.priority", "lpf.coll.alpha.knob"),
                c.parametersOf(a).stream().map(Parameters.Parameter::key).toList());
        c.select(Framework.COLL);
        c.select(Framework.COLL);
        assertEquals(1, a.opened, "selecting does not reopen");
    }

    @Test
    void incompatibleFrameworkApiIsDeclined() {
        Fake future = new Fake("future", Query.run(100), new Version(2, 0, 0));
        Fake newer = new Fake("newer", Query.run(100), new Version(1, 7, 0));
        Fake ok = new Fake("ok", Query.run(0));
        Components c = of(future, newer, ok);
        assertSame(ok, c.select(Framework.COLL));
        assertEquals("written for coll API 2.0.0, this lpf4j implements 1.0.0", c.verdict(future).reason());
        assertEquals("written for coll API 1.7.0, this lpf4j implements 1.0.0", c.verdict(newer).reason());
    }

    @Test
    void throwingModulesAreDeclinedWithTheException() {
        CollModule broken = new Fake("broken", Query.run(100)) {
            @Override public Query query() { throw new IllegalStateException("boom"); }
        };
        Components c = of(broken, new Fake("ok", Query.run(0)));
        assertEquals("ok", c.select(Framework.COLL).name());
        assertEquals("query failed: java.lang.IllegalStateException: boom", c.verdict(broken).reason());
    }

    @Test
    void duplicateNamesAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> of(new Fake("same", Query.run(1)), new Fake("same", Query.run(2))));
        assertTrue(e.getMessage().startsWith("two coll modules named 'same'"), e.getMessage());
    }

    @Test
    void queryRejectsPrioritiesOutsideTheRange() {
        assertThrows(IllegalArgumentException.class, () -> Query.run(101));
        assertThrows(IllegalArgumentException.class, () -> Query.run(-1));
        assertThrows(IllegalArgumentException.class, () -> Query.decline(" "));
    }

    @Test
    void costModelFollowsPredictionsUnlessForced() {
        Components c = new Components(registry, List.of(new org.lpf4j.builtin.CostModelColl()));
        CollModule m = c.select(Framework.COLL, CollModule.class);
        Map<String, Double> costs = new java.util.LinkedHashMap<>();
        costs.put("direct", 3e-6);
        costs.put("two_phase", 2e-6);
        assertEquals("two_phase", m.choose("broadcast", costs));
        assertEquals(CollModule.AUTO, m.forced("broadcast"));
        registry.set("lpf.coll.costmodel.broadcast", "direct");
        assertEquals("direct", m.choose("broadcast", costs));
        assertEquals("direct", m.forced("broadcast"));
        registry.set("lpf.coll.costmodel.broadcast", "tree");
        assertEquals("tree", m.forced("broadcast"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.choose("broadcast", costs));
        assertEquals("lpf.coll.costmodel.broadcast=tree (from programmatic): broadcast has no algorithm 'tree';"
                + " candidates: [direct, two_phase]", e.getMessage());
    }

    @Test
    void costModelAcceptsOnlyAgreedAlgorithmNames() {
        Components c = new Components(registry, List.of(new org.lpf4j.builtin.CostModelColl()));
        CollModule m = c.select(Framework.COLL, CollModule.class);
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> registry.set("lpf.coll.costmodel.allreduce", "twophase"));
        assertTrue(bad.getMessage().contains("lpf.coll.costmodel.allreduce"), bad.getMessage());
        assertTrue(bad.getMessage().contains("did you mean 'two_phase'"), bad.getMessage());
        IllegalArgumentException single = assertThrows(IllegalArgumentException.class,
                () -> registry.set("lpf.coll.costmodel.gather", "tree"));
        assertTrue(single.getMessage().contains("[auto, direct]"), single.getMessage());
        for (String a : CollModule.ALGORITHMS) {
            registry.set("lpf.coll.costmodel.combine", a);
            assertEquals(a, m.forced("combine"));
        }
        IllegalArgumentException op = assertThrows(IllegalArgumentException.class, () -> m.forced("sort"));
        assertTrue(op.getMessage().contains("unknown operation 'sort'"), op.getMessage());
    }

    @Test
    void envBootReadsLauncherVariables() {
        Map<String, String> launcher = new HashMap<>();
        org.lpf4j.builtin.EnvBoot boot = new org.lpf4j.builtin.EnvBoot(launcher::get);
        assertFalse(boot.query().canRun());
        launcher.put("PMI_RANK", "2");
        launcher.put("PMI_SIZE", "4");
        assertEquals(Query.run(50), boot.query());
        assertEquals(new BootModule.Membership(2, 4, "PMI_RANK/PMI_SIZE"), boot.membership());
        launcher.put("PMI_RANK", "4");
        assertEquals("Membership(rank=4, size=4) from PMI_RANK/PMI_SIZE", boot.query().reason());
    }

    /** A Slurm batch script has SLURM_PROCID=0 and SLURM_NTASKS, but it is no task of a parallel job; a step's task is. */
    @Test
    void envBootTakesOnlyTheTasksOfASlurmStep() {
        Map<String, String> slurm = new HashMap<>(Map.of("SLURM_JOB_ID", "8", "SLURM_PROCID", "0", "SLURM_NTASKS", "4"));
        org.lpf4j.builtin.EnvBoot boot = new org.lpf4j.builtin.EnvBoot(slurm::get);
        assertFalse(boot.query().canRun(), boot.query().reason());
        slurm.putAll(Map.of("SLURM_STEP_ID", "0", "SLURM_STEP_NUM_TASKS", "2", "SLURM_PROCID", "1"));
        assertEquals(new BootModule.Membership(1, 2, "SLURM_PROCID/SLURM_STEP_NUM_TASKS"), boot.membership());
    }
}
