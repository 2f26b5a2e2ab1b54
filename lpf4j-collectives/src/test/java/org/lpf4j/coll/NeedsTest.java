package org.lpf4j.coll;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
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
import static org.lpf4j.coll.Harness.assertRefused;
import static org.lpf4j.coll.Harness.segment;

/**
 * {@link Collectives#needs} is exactly enough, on the threads engine for p = 1..8, with the
 * queue counted as the core specification counts it ({@link SpecQueue}: origin plus target):
 * the program reserves its own two slots plus the declared capacity in one call
 * ({@link Capacity#reserve}), registers its slots, initialises the object and runs its
 * worst-case superstep ({@code maxCalls} allgathervs without
 * {@code excludeMyself}, every block non-empty); the busiest process takes exactly the declared
 * entries. With one entry less that superstep fails; with one slot less {@code init} fails.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NeedsTest {
    static final int[] ONE_TO_EIGHT = Harness.notAbove(1, 2, 3, 4, 5, 6, 7, 8);
    private static final int OWN_SLOTS = 2;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    @Test
    void needsIsOneSlotAndTwoEntriesPerMemberAndCall() {
        assertEquals(Capacity.of(1, 2L * 3 * 5), Collectives.needs(5, 3, 8, 100));
        assertEquals(Capacity.of(1, 0), Collectives.needs(0, 1, 0, 0));
        assertRefused(IllegalArgumentException.class, () -> Collectives.needs(4, 0, 0, 0),
                "Collectives.needs(members=4, maxCalls=0", "maxCalls >= 1");
        assertRefused(IllegalArgumentException.class, () -> Collectives.needs(4, 1, -1, 0), "maxElemSize=-1");
    }

    @ParameterizedTest(name = "p={0}")
    @FieldSource("ONE_TO_EIGHT")
    void theDeclaredCapacityIsExactlyEnough(int p) {
        for (int calls : new int[]{1, 3}) {
            Capacity need = Collectives.needs(p, calls, 0, 0);
            SpecQueue exact = new SpecQueue(p, need.entries());
            ThreadsEngine.root().exec(p, raw -> exact.run(raw, ctx -> worstCase(ctx, calls, OWN_SLOTS)));
            long peak = 0;
            for (int q = 0; q < p; q++) peak = Math.max(peak, exact.peak(q));
            assertEquals(need.entries(), peak, "p=" + p + " maxCalls=" + calls + ": the busiest process's entries");

            SpecQueue tight = new SpecQueue(p, need.entries() - 1);
            FatalException f = assertThrows(FatalException.class, () -> ThreadsEngine.root().exec(p,
                    raw -> tight.run(raw, ctx -> worstCase(ctx, calls, OWN_SLOTS))), "one entry less, p=" + p);
            assertTrue(String.valueOf(causes(f)).contains("message-queue entries"), "p=" + p + ": " + causes(f));

            ThreadsEngine.root().exec(p, ctx -> assertRefused(IllegalStateException.class,
                    () -> worstCase(ctx, calls, OWN_SLOTS - 1), "Collectives.init", "cannot register its buffer"));
        }
    }

    /**
     * Reserves {@code ownSlots} plus the declared need in one call, registers the program's two
     * slots, initialises the object and runs the worst superstep, checking its result.
     */
    private static void worstCase(Context ctx, int calls, int ownSlots) {
        int p = ctx.nprocs(), s = ctx.pid();
        Capacity.of(ownSlots, 0).plus(Collectives.needs(p, calls, 0, 0)).reserve(ctx);
        MemorySegment src = segment(8), dst = segment(8L * p);
        Memslot srcSlot = ctx.registerGlobal(src), dstSlot = ctx.registerGlobal(dst);
        Collectives coll = Collectives.init(ctx, calls, 0, 0);
        ctx.sync();
        long[] counts = new long[p], offsets = new long[p];
        for (int k = 0; k < p; k++) {
            counts[k] = 8;
            offsets[k] = 8L * k;
        }
        src.set(LONG, 0, 100L + s);
        for (int c = 0; c < calls; c++) coll.allgatherv(srcSlot, dstSlot, counts, offsets, false);
        ctx.sync();
        for (int k = 0; k < p; k++) assertEquals(100L + k, dst.get(LONG, 8L * k), "block " + k + " at pid " + s);
        coll.close();
        ctx.deregister(srcSlot);
        ctx.deregister(dstSlot);
    }

    private static StringBuilder causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c).append(" | ");
            for (Throwable x : c.getSuppressed()) b.append(x).append(" | ");
        }
        return b;
    }
}
