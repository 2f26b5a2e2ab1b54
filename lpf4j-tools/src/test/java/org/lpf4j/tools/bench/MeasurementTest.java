package org.lpf4j.tools.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The warm-up rule of {@link Measurement}: never before the warm-up time; after it, only once a
 * batch ran while the JIT compiled nothing; and at the latest at the end of the settling time.
 */
class MeasurementTest {
    private static final long WARM = 200, SETTLE = 2_200;

    @Test
    void warmUpLastsAtLeastItsTimeEvenWithAQuietJit() {
        assertFalse(Measurement.warmedUp(199, WARM, SETTLE, true));
        assertTrue(Measurement.warmedUp(200, WARM, SETTLE, true));
    }

    @Test
    void aCompilingJitExtendsTheWarmUpUntilTheSettlingTimeEnds() {
        assertFalse(Measurement.warmedUp(500, WARM, SETTLE, false));
        assertFalse(Measurement.warmedUp(2_199, WARM, SETTLE, false));
        assertTrue(Measurement.warmedUp(2_200, WARM, SETTLE, false));
    }
}
