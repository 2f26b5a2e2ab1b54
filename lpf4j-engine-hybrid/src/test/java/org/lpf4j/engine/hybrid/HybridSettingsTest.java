package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Node JVMs sharing a host count toward its oversubscription (waiting policy and barrier kind). */
class HybridSettingsTest {
    private static final int CORES = Runtime.getRuntime().availableProcessors();

    @Test
    void threadsOfEveryNodeJvmOnTheHostCompeteForItsCores() {
        HybridSettings alone = new HybridSettings(CORES, true, -1, -1, 100, 1);
        HybridSettings shared = new HybridSettings(CORES, true, -1, -1, 100, 2);
        assertEquals(CORES, alone.competing(CORES));
        assertEquals(2 * CORES, shared.competing(CORES));
        assertEquals("auto", alone.barrier(CORES), "one thread per core: the threads kit's own choice");
        assertEquals("central", shared.barrier(CORES), "two JVMs' threads on the same cores: central barrier");
    }

    @Test
    void theSharersComeFromTheLauncherAndAreAtLeastOne() {
        assertEquals(1, HybridSettings.resolve(0, 2).sharers());
        assertEquals(3, HybridSettings.resolve(3, 2).sharers());
    }
}
