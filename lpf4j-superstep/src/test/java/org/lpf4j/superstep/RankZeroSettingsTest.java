package org.lpf4j.superstep;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a JVM without rank 0 takes rank 0's programmatic settings at each section, and gives back its own. */
class RankZeroSettingsTest {
    private static final ParameterRegistry REGISTRY = ParameterRegistry.global();
    private static final Parameters.Parameter<String> A = REGISTRY.string("lpf.test.adopt.a", "default-a", "a test key");
    private static final Parameters.Parameter<Integer> B = REGISTRY.integer("lpf.test.adopt.b", 1, 0, 10, "a test key");
    private static final String RANK_ZERO = "another JVM";

    @AfterEach
    void clear() {
        RankZeroSettings.adopt(Map.of(), RANK_ZERO);
        REGISTRY.clear(A.key());
        REGISTRY.clear(B.key());
    }

    @Test
    void rankZerosSettingsHoldUntilItClearsThemThenThisJvmsOwnComeBack() {
        REGISTRY.set(B.key(), "7"); // this JVM's own setting (its launcher's, say)
        RankZeroSettings.adopt(Map.of(A.key(), "from-zero", B.key(), "3"), RANK_ZERO);
        assertEquals("from-zero", A.get());
        assertEquals(3, B.get());
        // The next section: rank 0 has cleared B and changed A.
        RankZeroSettings.adopt(Map.of(A.key(), "again"), RANK_ZERO);
        assertEquals("again", A.get());
        assertEquals(7, B.get(), "this JVM's own setting is back");
        RankZeroSettings.adopt(Map.of(), RANK_ZERO);
        assertNull(REGISTRY.setting(A.key()), "A had no setting of this JVM's");
        assertEquals("default-a", A.get());
        assertEquals("7", REGISTRY.setting(B.key()));
    }

    @Test
    void theJvmOfRankZeroLeavesItsSettingsAlone() {
        REGISTRY.set(A.key(), "mine");
        RankZeroSettings.adopt(Map.of(A.key(), "mine"), RankZeroSettings.JVM);
        REGISTRY.clear(A.key()); // rank 0's program clears it while another rank of its JVM is still in the section
        RankZeroSettings.adopt(Map.of(), RankZeroSettings.JVM);
        assertNull(REGISTRY.setting(A.key()), "a rank that shares rank 0's JVM restored nothing");
    }

    @Test
    void anInvalidValueIsRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RankZeroSettings.adopt(Map.of(B.key(), "11"), RANK_ZERO));
        assertTrue(e.getMessage().contains(B.key()), e.getMessage());
    }
}
