package org.lpf4j.bsmp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.engine.threads.ThreadsEngine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Bsmp#needs} is exactly enough on the threads engine, p = 1..8: the program reserves its
 * own two slots plus the declared capacity in one call ({@link Capacity#reserve}), registers
 * them, creates the object and runs its worst-case superstep (maxMessages = 2p sends, each with
 * tag and payload in different slots, to every process, then the sync). With one queue entry
 * less that superstep fails; with one register slot less {@code create} fails.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BsmpNeedsTest {
    private static final int OWN_SLOTS = 2;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    @Test
    void needsIsFourSlotsAndTheQueueEntries() {
        assertEquals(Capacity.of(Bsmp.REGISTER_ENTRIES, Bsmp.queueEntries(5, 7)), Bsmp.needs(5, 100, 8, 7));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Bsmp.needs(0, 1, 1, 1));
        assertTrue(e.getMessage().contains("Bsmp.needs(nprocs=0"), e.getMessage());
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void theDeclaredCapacityIsExactlyEnough(int p) {
        ThreadsEngine.root().exec(p, ctx -> worstCase(ctx, OWN_SLOTS, 0));

        FatalException f = assertThrows(FatalException.class,
                () -> ThreadsEngine.root().exec(p, ctx -> worstCase(ctx, OWN_SLOTS, 1)), "one entry less, p=" + p);
        assertTrue(causes(f).contains("message queue full"), "p=" + p + ": " + causes(f));

        FatalException g = assertThrows(FatalException.class,
                () -> ThreadsEngine.root().exec(p, ctx -> worstCase(ctx, OWN_SLOTS - 1, 0)), "one slot less, p=" + p);
        assertTrue(causes(g).contains("memory register full"), "p=" + p + ": " + causes(g));
    }

    private static void worstCase(Context ctx, int ownSlots, int fewerEntries) {
        int p = ctx.nprocs(), s = ctx.pid(), m = 2 * p;
        Capacity need = Bsmp.needs(p, 8L * m, 8, m);
        Capacity.of(ownSlots, 0).plus(need).reserve(ctx);
        if (fewerEntries > 0) {
            ctx.resizeMessageQueue(need.entries() - fewerEntries);
            ctx.sync();
        }
        MemorySegment tags = MemorySegment.ofArray(new long[m]), payloads = MemorySegment.ofArray(new long[m]);
        Memslot tagSlot = ctx.registerLocal(tags), payloadSlot = ctx.registerLocal(payloads);
        try (Bsmp bsmp = Bsmp.create(ctx, 8L * m, 8, m)) {
            for (int i = 0; i < m; i++) {
                tags.set(LONG, 8L * i, s);
                payloads.set(LONG, 8L * i, 1000L * s + i);
                bsmp.send((s + i) % p, tagSlot, 8L * i, payloadSlot, 8L * i, 8);
            }
            bsmp.sync();
            long received = 0, sum = 0, expected = 0;
            for (BsmpMessage msg : bsmp.messages()) {
                received++;
                sum += msg.payload().get(LONG, 0);
            }
            for (int q = 0; q < p; q++) for (int i = 0; i < m; i++) if ((q + i) % p == s) expected += 1000L * q + i;
            assertEquals(m, received, "messages at pid " + s);
            assertEquals(expected, sum, "payloads at pid " + s);
            bsmp.sync();
        }
        ctx.deregister(tagSlot);
        ctx.deregister(payloadSlot);
    }

    private static String causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c).append(" | ");
            for (Throwable x : c.getSuppressed()) b.append(x).append(" | ");
        }
        return b.toString();
    }
}
