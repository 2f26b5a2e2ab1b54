package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Test;
import org.lpf4j.spi.Component;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Engines;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.ParameterRegistry;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** With the threads engine on the path, ServiceLoader finds it beside the core's own modules. */
class InstalledComponentsTest {
    @Test
    void installedModulesAreFoundWithServiceLoader() {
        Components c = Components.installed();
        assertEquals(List.of("threads"), c.modules(Framework.ENGINE).stream().map(Component::name).toList());
        assertEquals(List.of("env", "local"), c.modules(Framework.BOOT).stream().map(Component::name).toList());
        assertEquals("costmodel", c.select(Framework.COLL).name());
        assertEquals("none", c.select(Framework.CR).name());
        assertEquals("threads", Engines.selected().name());
        assertTrue(ParameterRegistry.global().find("lpf.engine.threads.priority").isPresent());
        assertTrue(c.parametersOf(c.byName(Framework.ENGINE, "threads")).stream()
                .anyMatch(p -> p.key().equals("lpf.engine.threads.spin")));
    }
}
