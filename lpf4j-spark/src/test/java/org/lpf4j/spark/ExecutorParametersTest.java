package org.lpf4j.spark;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.ParameterRegistry;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The parameters of the stages running in one executor JVM: one set at a time (unset counting as
 * a value), a bad value changes nothing, and the keys get back their settings when the last task
 * ends. Runs no Spark.
 */
class ExecutorParametersTest {
    private static final String TIMEOUT = "lpf.engine.net.syncTimeout", DEBUG = "lpf.debug";
    private static final ParameterRegistry REGISTRY = ParameterRegistry.global();

    @BeforeAll
    static void declareTheModulesParameters() { Components.installed(); }

    @Test
    void aBadValueChangesNothingAndALaterStageWithAGoodValueRuns() {
        Map<String, String> bad = Map.of(DEBUG, "true", TIMEOUT, "not-a-number");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExecutorParameters.apply(bad, "stage A"));
        assertTrue(e.getMessage().startsWith("stage A: BspStage.parameter(" + TIMEOUT + ", not-a-number): "), e.getMessage());
        assertTrue(e.getMessage().contains("not an integer"), e.getMessage());
        assertNull(REGISTRY.setting(DEBUG), "the good key before the bad one was not set either");
        assertNull(REGISTRY.setting(TIMEOUT));

        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> ExecutorParameters.apply(Map.of("lpf.engine.net.syncTimout", "1000"), "stage B"));
        assertTrue(unknown.getMessage().contains("BspStage.parameter(lpf.engine.net.syncTimout, 1000)"), unknown.getMessage());
        assertTrue(unknown.getMessage().contains("did you mean " + TIMEOUT), unknown.getMessage());

        try (ExecutorParameters.Applied a = ExecutorParameters.apply(Map.of(TIMEOUT, "30000"), "stage C")) {
            assertEquals("30000", REGISTRY.setting(TIMEOUT), "the fixed value holds: the bad one left no hold behind");
        }
        assertNull(REGISTRY.setting(TIMEOUT), "cleared when the last task ended");
    }

    @Test
    void stagesRunningAtOnceMustHaveTheSameParametersUnsetCountingAsAValue() {
        ExecutorParameters.Applied a1 = ExecutorParameters.apply(Map.of(DEBUG, "true"), "stage A task 1");
        ExecutorParameters.Applied a2 = ExecutorParameters.apply(Map.of(DEBUG, "true"), "stage A task 2");
        try {
            IllegalStateException none = assertThrows(IllegalStateException.class, () -> ExecutorParameters.apply(Map.of(), "stage B"));
            assertTrue(none.getMessage().contains("stage B: parameters {lpf.debug=(unset)} conflict with {lpf.debug=true} of another"),
                    none.getMessage());
            IllegalStateException other = assertThrows(IllegalStateException.class,
                    () -> ExecutorParameters.apply(Map.of(DEBUG, "false", TIMEOUT, "1000"), "stage C"));
            assertTrue(other.getMessage().contains("{lpf.debug=false, " + TIMEOUT + "=1000} conflict with {lpf.debug=true, "
                    + TIMEOUT + "=(unset)}"), other.getMessage());
            a1.close();
            a1.close(); // once only
            assertEquals("true", REGISTRY.setting(DEBUG), "held while a task of stage A runs");
            assertThrows(IllegalStateException.class, () -> ExecutorParameters.apply(Map.of(), "stage B"));
        } finally {
            a1.close();
            a2.close();
        }
        assertNull(REGISTRY.setting(DEBUG));
        try (ExecutorParameters.Applied b = ExecutorParameters.apply(Map.of(), "stage B")) {
            assertNull(REGISTRY.setting(DEBUG), "stage B runs without stage A's lpf.debug");
        }
    }

    @Test
    void theLastTaskRestoresWhatTheKeysHeldBefore() {
        REGISTRY.set(TIMEOUT, "45000");
        try {
            try (ExecutorParameters.Applied a = ExecutorParameters.apply(Map.of(TIMEOUT, "30000"), "stage A")) {
                assertEquals("30000", REGISTRY.setting(TIMEOUT));
            }
            assertEquals("45000", REGISTRY.setting(TIMEOUT));
        } finally {
            REGISTRY.clear(TIMEOUT);
        }
    }
}
