package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Node JVMs sharing a host count toward its oversubscription (waiting policy, CPU spreading and barrier kind). */
class HybridSettingsTest {
    private static final int CORES = Runtime.getRuntime().availableProcessors();

    @Test
    void threadsOfEveryNodeJvmOnTheHostCompeteForItsCores() {
        HybridSettings alone = new HybridSettings(CORES, true, -1, -1, 100, 1);
        HybridSettings shared = new HybridSettings(CORES, true, -1, -1, 100, 2);
        assertEquals(CORES, alone.competing(CORES));
        assertEquals(2 * CORES, shared.competing(CORES));
        assertEquals("auto", alone.barrier(CORES), "one thread per core: the thread group's own choice");
        assertEquals("central", shared.barrier(CORES), "two JVMs' threads on the same cores: central barrier");
    }

    @Test
    void threadsSpreadOverTheCpusOnlyWhereNoOtherNodeJvmFillsThem() {
        assertTrue(new HybridSettings(CORES, true, -1, -1, 100, 1).spreadsCpus(CORES), "the host to itself");
        assertTrue(new HybridSettings(2 * CORES, true, -1, -1, 100, 1).spreadsCpus(2 * CORES),
                "oversubscribed by its own threads only: spreading sees them all");
        assertFalse(new HybridSettings(CORES, true, -1, -1, 100, 2).spreadsCpus(CORES),
                "two node JVMs fill the cores: spreading would push ours beside the other JVM's");
        if (CORES >= 4) {
            assertTrue(new HybridSettings(CORES / 2, true, -1, -1, 100, 2).spreadsCpus(CORES / 2),
                    "two node JVMs that together fit the cores");
        }
    }

    @Test
    void theSharersComeFromTheLauncherAndAreAtLeastOne() {
        assertEquals(1, HybridSettings.resolve(0, 2).sharers());
        assertEquals(3, HybridSettings.resolve(3, 2).sharers());
    }
}
