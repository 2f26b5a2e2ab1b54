package org.lpf4j.cr;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.engine.threads.ThreadsEngine;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Parameters;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lpf4j.cr.CheckpointsTest.causes;

/**
 * {@link Checkpoints#needs} is exactly enough on the threads engine, p = 1..8, under the
 * {@code memory} module (which takes checkpoints): the program reserves its own slot plus the
 * declared capacity in one call ({@link Capacity#reserve}), registers it, initialises the
 * object, resumes and runs checkpoint points that take checkpoints (the superstep in which
 * process 0 tells every other process its decision). With one queue entry less (p ≥ 2) a point
 * fails; with one register slot less {@code init} fails.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckpointsNeedsTest {
    private static final int OWN_SLOTS = 1;

    @AfterEach
    void clear() {
        Parameters.clear("lpf.cr");
    }

    @Test
    void needsIsOneSlotAndAnEntryPerOtherProcess() {
        assertEquals(Capacity.of(1, 4), Checkpoints.needs(5));
        assertEquals(Capacity.of(1, 0), Checkpoints.needs(1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Checkpoints.needs(0));
        assertTrue(e.getMessage().contains("Checkpoints.needs(nprocs=0)"), e.getMessage());
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void theDeclaredCapacityIsExactlyEnough(int p) {
        Components.installed();
        Parameters.set("lpf.cr", "memory");
        ThreadsEngine.root().exec(p, ctx -> worstCase(ctx, OWN_SLOTS, 0));
        if (p >= 2) {
            FatalException f = assertThrows(FatalException.class,
                    () -> ThreadsEngine.root().exec(p, ctx -> worstCase(ctx, OWN_SLOTS, 1)), "one entry less, p=" + p);
            assertTrue(causes(f).contains("message queue full"), "p=" + p + ": " + causes(f));
        }
        FatalException g = assertThrows(FatalException.class,
                () -> ThreadsEngine.root().exec(p, ctx -> worstCase(ctx, OWN_SLOTS - 1, 0)), "one slot less, p=" + p);
        assertTrue(causes(g).contains("memory register full"), "p=" + p + ": " + causes(g));
    }

    private static void worstCase(Context ctx, int ownSlots, int fewerEntries) {
        int p = ctx.nprocs();
        Capacity need = Checkpoints.needs(p);
        Capacity.of(ownSlots, 0).plus(need).reserve(ctx);
        if (fewerEntries > 0) {
            ctx.resizeMessageQueue(need.entries() - fewerEntries);
            ctx.sync();
        }
        MemorySegment data = MemorySegment.ofArray(new long[4]);
        Memslot own = ctx.registerGlobal(data);
        ctx.sync();
        try (Checkpoints cr = Checkpoints.init(ctx, "needs-" + p + "-" + ownSlots + "-" + fewerEntries)) {
            cr.protect("data", data);
            cr.resume();
            for (int i = 0; i < 3; i++) {
                data.setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, 0, i);
                cr.checkpointNow();
                assertTrue(cr.tookCheckpoint(), "a checkpoint at point " + i + " at pid " + ctx.pid());
            }
            cr.flush();
            cr.checkpoint();
        }
        ctx.deregister(own);
    }
}
