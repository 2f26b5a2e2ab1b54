package org.lpf4j;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The core contains no engine: without an engine module, Lpf.root() says what is missing. */
class NoEngineTest {
    @Test
    void withoutAnEngineModuleRootNamesWhatIsMissing() {
        IllegalStateException e = assertThrows(IllegalStateException.class, Lpf::root);
        assertTrue(e.getMessage().contains("no usable engine module: none installed"), e.getMessage());
        assertTrue(e.getMessage().contains("engine module"), e.getMessage());
    }
}
