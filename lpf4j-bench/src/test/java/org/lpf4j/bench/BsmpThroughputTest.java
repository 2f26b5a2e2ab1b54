package org.lpf4j.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Lpf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The benchmark runs, checks its own deliveries and reports finite positive rates. */
@Timeout(60)
class BsmpThroughputTest {
    @Test
    void shortRunReportsPositiveRates() {
        for (int p : new int[]{2, 3}) {
            BsmpThroughput.Result r = BsmpThroughput.measure(Lpf.root(), p, 64, 4, 20);
            assertEquals(p, r.p());
            assertTrue(r.bsmpMessagesPerSecond() > 0 && Double.isFinite(r.bsmpMessagesPerSecond()), r.toString());
            assertTrue(r.putMessagesPerSecond() > 0 && Double.isFinite(r.putMessagesPerSecond()), r.toString());
            assertEquals(r.putMessagesPerSecond() * 64, r.putBytesPerSecond(), 1e-6 * r.putBytesPerSecond());
            assertTrue(r.toString().contains("p=" + p), r.toString());
        }
        assertThrows(IllegalArgumentException.class, () -> BsmpThroughput.measure(Lpf.root(), 2, 0, 1, 1));
    }
}
