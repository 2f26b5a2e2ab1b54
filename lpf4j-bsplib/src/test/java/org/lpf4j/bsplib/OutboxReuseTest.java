package org.lpf4j.bsplib;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Messages to pid 0 that take the full protocol (a stream larger than the largest region) again
 * and again: the outbox a sender stages them in must not grow from one such superstep to the next
 * (the per-destination offsets start at 0 every sync), so identical supersteps cost the same.
 */
@Timeout(60)
class OutboxReuseTest {
    static final int[] MULTI = Run.MULTI;

    @ParameterizedTest
    @FieldSource("MULTI")
    void repeatedFullProtocolMessagesToPidZeroDoNotGrowTheOutbox(int p) {
        Run.bsp(p, bsp -> {
            int n = (int) (Streams.R_MAX / 8) + 1024; // one message larger than any region: always the full protocol
            MemorySegment big = Run.longs(n), got = Run.longs(n);
            long[] cost = new long[8];
            for (int round = 0; round < cost.length; round++) {
                for (int i = 0; i < n; i += 4096) big.setAtIndex(JAVA_LONG, i, 1000L * round + i + bsp.pid());
                long before = bsp.context().superstep();
                bsp.send(0, null, big, 8L * n);
                bsp.sync();
                cost[round] = bsp.context().superstep() - before;
                if (bsp.pid() == 0) {
                    assertEquals(p, bsp.qsize(), "round " + round);
                    while (bsp.qsize() > 0) {
                        assertEquals(8L * n, bsp.move(got));
                        long first = got.getAtIndex(JAVA_LONG, 0) - 1000L * round;
                        assertTrue(first >= 0 && first < p, "round " + round + ": a sender's pid, got " + first);
                        assertEquals(1000L * round + 4096 + first, got.getAtIndex(JAVA_LONG, 4096), "round " + round);
                    }
                }
            }
            long outbox = outboxBytes(bsp), record = Streams.msgRecord(0, 8L * n);
            assertTrue(outbox <= 2 * record, "the outbox has " + outbox + " bytes after " + cost.length
                    + " supersteps of one " + record + "-byte message record to pid 0");
            for (int round = 2; round < cost.length; round++) {
                assertEquals(cost[1], cost[round], "core supersteps of identical syncs after the first, per round: "
                        + java.util.Arrays.toString(cost) + " (an extra one: the outbox grew again)");
            }
        });
    }

    /** @return the bytes of the layer's outbox (where the full protocol stages outgoing messages) */
    private static long outboxBytes(Bsplib bsp) {
        try {
            java.lang.reflect.Field syncer = Bsplib.class.getDeclaredField("syncer");
            syncer.setAccessible(true);
            java.lang.reflect.Field outbox = Sync.class.getDeclaredField("outbox");
            outbox.setAccessible(true);
            return ((MemorySegment) outbox.get(syncer.get(bsp))).byteSize();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
