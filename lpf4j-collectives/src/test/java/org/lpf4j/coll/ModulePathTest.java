package org.lpf4j.coll;

import org.junit.jupiter.api.Test;
import org.lpf4j.Lpf;
import org.lpf4j.spi.EngineProvider;

import java.lang.reflect.InaccessibleObjectException;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * This module's suite runs on the module path (surefire's {@code useModulePath} in its pom), so the
 * module declarations are what the tests run under: the library reads the core through its
 * {@code requires}, the core finds the threads engine through its {@code uses} and the engine's
 * {@code provides} (a service file alone is ignored for a named module), and what the core does not
 * export stays closed. Every test here fails on the class path.
 */
class ModulePathTest {
    private static final Module COLL = Collectives.class.getModule();
    private static final Module CORE = Lpf.class.getModule();

    @Test
    void theTestsRunInsideTheNamedCollectivesModule() {
        assertEquals("org.lpf4j.coll", COLL.getName());
        assertSame(COLL, getClass().getModule(), "the test classes are patched into the library's module");
        assertEquals("org.lpf4j.core", CORE.getName());
        assertTrue(COLL.canRead(CORE), "requires transitive org.lpf4j.core");
    }

    @Test
    void theEngineIsFoundByServiceLoaderInItsNamedModule() {
        EngineProvider engine = Lpf.engine();
        Module m = engine.getClass().getModule();
        assertEquals("org.lpf4j.engine.threads", m.getName(), "the engine's module: " + m);
        assertTrue(m.getDescriptor().provides().stream().anyMatch(p -> p.service().equals(EngineProvider.class.getName())
                && p.providers().contains(engine.getClass().getName())), "provided by the engine's module-info");
        assertTrue(CORE.getDescriptor().uses().contains(EngineProvider.class.getName()), "the core's uses");

        // The rest of this suite runs the collectives on the sections of the engine found this way.
        int p = 4;
        AtomicIntegerArray seen = new AtomicIntegerArray(p);
        Lpf.root().exec(p, ctx -> seen.set(ctx.pid(), ctx.nprocs()));
        for (int s = 0; s < p; s++) assertEquals(p, seen.get(s), "pid " + s);
    }

    @Test
    void whatTheCoreDoesNotExportStaysClosedToTheLibrary() throws Exception {
        assertTrue(CORE.isExported("org.lpf4j", COLL));
        assertTrue(CORE.isExported("org.lpf4j.spi", COLL));
        assertFalse(CORE.isExported("org.lpf4j.builtin", COLL), "the core's own modules are not API");
        Class<?> internal = Class.forName("org.lpf4j.builtin.LocalBoot");
        assertSame(CORE, internal.getModule());
        assertThrows(InaccessibleObjectException.class, () -> internal.getConstructor().setAccessible(true));
    }
}
