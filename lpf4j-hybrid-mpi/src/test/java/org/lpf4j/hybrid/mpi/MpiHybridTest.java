package org.lpf4j.hybrid.mpi;

import org.junit.jupiter.api.Test;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.kit.LayeredEngine;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The entry's checks before any MPI call, with the hybrid engine found through the component registry. */
class MpiHybridTest {
    @Test
    void theHybridEngineIsFoundByNameAsALayeredEngine() {
        assertTrue(Components.installed().byName(Framework.ENGINE, "hybrid") instanceof LayeredEngine);
    }

    @Test
    void aThreadCountOutOfRangeIsRefusedAtOnceNamingTheCall() {
        for (int t : new int[] {-1, 1 << 20}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MpiHybrid.init(7, t));
            assertTrue(e.getMessage().contains("MpiHybrid.init(comm=7, threadsPerNode=" + t + ")")
                    && e.getMessage().contains("need 0 <= threadsPerNode <="), e.getMessage());
        }
    }
}
