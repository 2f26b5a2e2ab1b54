package org.lpf4j.spi;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Parameter sources, their precedence, and invalid parameters. */
@Timeout(10)
class ParametersTest {
    /** A key no other test or module uses, so the real system property can be set safely. */
    private static final String KEY = "lpf.engine.ptest.level";

    private final Map<String, String> env = new HashMap<>();
    private final ParameterRegistry registry = new ParameterRegistry(env::get, System::getProperty);

    @AfterEach
    void clearProperty() { System.clearProperty(KEY); }

    @Test
    void precedenceProgrammaticOverPropertyOverEnvironmentOverDefault() {
        Parameters.Parameter<Integer> p = registry.integer(KEY, 3, 0, 100, "test level");
        assertEquals("LPF_ENGINE_PTEST_LEVEL", p.environmentVariable());
        assertEquals(new Parameters.Value<>(3, null, Parameters.Source.DEFAULT), p.resolve());

        env.put("LPF_ENGINE_PTEST_LEVEL", "10");
        assertEquals(new Parameters.Value<>(10, "10", Parameters.Source.ENVIRONMENT), p.resolve());

        System.setProperty(KEY, " 20 ");
        assertEquals(20, p.get());
        assertEquals(Parameters.Source.SYSTEM_PROPERTY, p.source());

        registry.set(KEY, "30");
        assertEquals(new Parameters.Value<>(30, "30", Parameters.Source.PROGRAMMATIC), p.resolve());

        registry.clear(KEY);
        assertEquals(Parameters.Source.SYSTEM_PROPERTY, p.source());
        System.clearProperty(KEY);
        assertEquals(10, p.get());
        env.clear();
        assertEquals(Parameters.Source.DEFAULT, p.source());
    }

    @Test
    void booleanAndChoiceParse() {
        Parameters.Parameter<Boolean> b = registry.bool("lpf.engine.ptest.flag", false, "a flag");
        for (String yes : List.of("true", "1", "yes", "ON")) {
            registry.set(b.key(), yes);
            assertTrue(b.get(), yes);
        }
        Parameters.Parameter<String> c = registry.choice("lpf.coll.ptest.algo", "auto", List.of("auto", "tree", "flat"), "algo");
        registry.set(c.key(), "tree");
        assertEquals("tree", c.get());
    }

    @Test
    void wrongTypeNamesKeyTextSourceAndExpectation() {
        registry.integer(KEY, 3, 0, 100, "test level");
        env.put("LPF_ENGINE_PTEST_LEVEL", "lots");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> registry.require(KEY).get());
        assertEquals("parameter lpf.engine.ptest.level = 'lots' (from environment LPF_ENGINE_PTEST_LEVEL): not an integer;"
                + " expected integer in [0, 100]", e.getMessage());
        Parameters.Parameter<Boolean> b = registry.bool("lpf.engine.ptest.flag", false, "a flag");
        e = assertThrows(IllegalArgumentException.class, () -> registry.set(b.key(), "maybe"));
        assertTrue(e.getMessage().contains("'maybe' (from programmatic): not a boolean"), e.getMessage());
        assertEquals(Parameters.Source.DEFAULT, b.source(), "a rejected setting leaves nothing behind");
    }

    @Test
    void checkRefusesWhatSetWouldAndChangesNothing() {
        registry.integer(KEY, 3, 0, 100, "test level");
        registry.check(KEY, "42");
        assertEquals(Parameters.Source.DEFAULT, registry.require(KEY).source(), "a check sets nothing");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> registry.check(KEY, "lots"));
        assertEquals("parameter lpf.engine.ptest.level = 'lots': not an integer; expected integer in [0, 100]", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> registry.check("lpf.engine.ptest.levle", "1"));
        assertTrue(e.getMessage().contains("did you mean lpf.engine.ptest.level?"), e.getMessage());
    }

    @Test
    void outOfRangeIsAnError() {
        registry.integer(KEY, 3, 0, 100, "test level");
        System.setProperty(KEY, "101");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> registry.require(KEY).get());
        assertTrue(e.getMessage().contains("'101' (from system property): out of range [0, 100]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> registry.set(KEY, "-1"));
        assertTrue(e.getMessage().contains("out of range"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> registry.set(KEY, "99999999999"));
        assertTrue(e.getMessage().contains("out of range"), e.getMessage());
    }

    @Test
    void choiceOutsideItsWordsSuggestsTheNearest() {
        registry.choice("lpf.coll.ptest.algo", "auto", List.of("auto", "tree", "flat"), "algo");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.set("lpf.coll.ptest.algo", "tre"));
        assertTrue(e.getMessage().contains("not one of [auto, tree, flat]; did you mean 'tree'?"), e.getMessage());
    }

    @Test
    void unknownKeySuggestsTheNearMatch() {
        registry.integer("lpf.engine.threads.spin", -1, -1, 10, "spin");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.set("lpf.engine.threads.spni", "3"));
        assertEquals("unknown parameter lpf.engine.threads.spni; did you mean lpf.engine.threads.spin?", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> registry.set("lpf.engine.nothing.like.it", "3"));
        assertTrue(e.getMessage().startsWith("unknown parameter lpf.engine.nothing.like.it; see 'lpf info'"), e.getMessage());
    }

    @Test
    void unknownPropertiesAndVariablesInFrameworkNamespacesAreFound() {
        registry.integer("lpf.engine.threads.spin", -1, -1, 10, "spin");
        List<String> problems = registry.unknownSettings(Set.of("lpf.engine.threads.spim", "lpf.engine.threads.spin",
                "lpf.other.thing", "user.home"), Set.of("LPF_ENGINE_THREADS_SPN", "LPF_ENGINE_THREADS_SPIN", "PATH"),
                List.of("lpf.engine."));
        assertEquals(List.of("system property lpf.engine.threads.spim names no parameter; did you mean lpf.engine.threads.spin?",
                "environment variable LPF_ENGINE_THREADS_SPN names no parameter; did you mean LPF_ENGINE_THREADS_SPIN?"), problems);
    }

    @Test
    void onlyNearMissesCountAsMisspelt() {
        registry.integer("lpf.engine.threads.spin", -1, -1, 10, "spin");
        List<String> problems = registry.misspeltSettings(Set.of("lpf.engine.threads.spim", "lpf.engine.mpi.transport",
                "lpf.engine.threads.spin"), Set.of("LPF_ENGINE_THREADS_SPN", "LPF_ENGINE_MPI_TRANSPORT"), List.of("lpf.engine."));
        assertEquals(List.of("system property lpf.engine.threads.spim names no parameter; did you mean lpf.engine.threads.spin?",
                "environment variable LPF_ENGINE_THREADS_SPN names no parameter; did you mean LPF_ENGINE_THREADS_SPIN?"), problems);
    }

    @Test
    void malformedOrDuplicateDeclarationsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> registry.integer("engine.x", 1, 0, 2, "no lpf prefix"));
        assertThrows(IllegalArgumentException.class, () -> registry.integer("lpf.engine.x.y", 5, 0, 2, "default out of range"));
        registry.string("lpf.engine.x.name", "a", "a name");
        assertThrows(IllegalStateException.class, () -> registry.string("lpf.engine.x.name", "b", "again"));
        assertNull(registry.find("lpf.engine.x.other").orElse(null));
    }
}
