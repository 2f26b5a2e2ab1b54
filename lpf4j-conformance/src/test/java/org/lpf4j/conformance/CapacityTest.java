package org.lpf4j.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Capacity;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Message queue and memory register capacities: effective after the next sync, shrinking
 * delayed by one superstep, exceeding them a clear error with no effect, an impossible size an
 * LpfOutOfMemoryException with no effect. {@link Capacity}: needs add up, and one
 * {@code reserve} makes exactly their sum available after one sync.
 */
@Timeout(60)
@ExpectsEngineRefusal
class CapacityTest {

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void theQueueHoldsExactlyItsCapacityAndAFailedPutChangesNothing(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(3);
            ctx.sync();
            MemorySegment src = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 4);
            MemorySegment dst = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 4);
            for (int i = 0; i < 4; i++) src.setAtIndex(ValueLayout.JAVA_INT, i, 10 * s + i + 1);
            Memslot srcSlot = ctx.registerLocal(src);
            Memslot dstSlot = ctx.registerGlobal(dst);
            ctx.sync();
            int next = (s + 1) % p;
            for (int i = 0; i < 3; i++) ctx.put(srcSlot, 4L * i, next, dstSlot, 4L * i, 4);
            var e = assertThrows(IllegalStateException.class, () -> ctx.put(srcSlot, 12, next, dstSlot, 12, 4));
            assertTrue(e.getMessage().contains("message queue full") && e.getMessage().contains("3"), e.getMessage());
            ctx.sync();
            int prev = (s + p - 1) % p;
            for (int i = 0; i < 3; i++) assertEquals(10 * prev + i + 1, dst.getAtIndex(ValueLayout.JAVA_INT, i));
            assertEquals(0, dst.getAtIndex(ValueLayout.JAVA_INT, 3), "the refused put must not be executed");
            // The queue is empty again after the sync: three more fit.
            for (int i = 0; i < 3; i++) ctx.get(next, dstSlot, 4L * i, srcSlot, 4L * i, 4);
            ctx.sync();
            ctx.deregister(dstSlot);
            ctx.deregister(srcSlot);
        });
    }

    @Test
    void capacitiesAddUpAndRefuseNegativeValues() {
        assertEquals(Capacity.of(3, 7), Capacity.of(1, 2).plus(Capacity.of(2, 5)));
        assertEquals(Capacity.of(1, 2), Capacity.NONE.plus(Capacity.of(1, 2)));
        var e = assertThrows(IllegalArgumentException.class, () -> Capacity.of(-1, 0));
        assertTrue(e.getMessage().contains("Capacity(slots=-1, entries=0)"), e.getMessage());
        assertThrows(ArithmeticException.class, () -> Capacity.of(0, Long.MAX_VALUE).plus(Capacity.of(0, 1)));
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void oneReserveMakesExactlyTheSumAvailableInOneSync(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            long before = ctx.superstep();
            Capacity.of(1, 1).plus(Capacity.of(1, 2)).reserve(ctx);
            assertEquals(before + 1, ctx.superstep(), "reserve syncs once");
            MemorySegment src = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 4);
            MemorySegment dst = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 4);
            Memslot srcSlot = ctx.registerLocal(src);
            Memslot dstSlot = ctx.registerGlobal(dst);
            var full = assertThrows(IllegalStateException.class, () -> ctx.registerLocal(Arena.ofAuto().allocate(4)));
            assertTrue(full.getMessage().contains("memory register full"), full.getMessage());
            ctx.sync();
            int next = (s + 1) % p;
            for (int i = 0; i < 3; i++) ctx.put(srcSlot, 4L * i, next, dstSlot, 4L * i, 4);
            var e = assertThrows(IllegalStateException.class, () -> ctx.put(srcSlot, 12, next, dstSlot, 12, 4));
            assertTrue(e.getMessage().contains("message queue full"), e.getMessage());
            ctx.sync();
            ctx.deregister(dstSlot);
            ctx.deregister(srcSlot);
        });
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void resizesTakeEffectAfterTheNextSyncAndShrinkingIsDelayed(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(4);
            MemorySegment area = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 4);
            // Nothing is reserved before the first sync.
            assertThrows(IllegalStateException.class, () -> ctx.registerLocal(area));
            ctx.sync();
            Memslot slot = ctx.registerGlobal(area);
            // Growing the register counts only after the next sync.
            ctx.resizeMemoryRegister(2);
            assertThrows(IllegalStateException.class, () -> ctx.registerLocal(Arena.ofAuto().allocate(4)));
            ctx.sync();
            Memslot extra = ctx.registerLocal(Arena.ofAuto().allocate(4));
            // Shrinking the queue to 1: the old capacity of 4 holds for this superstep.
            ctx.resizeMessageQueue(1);
            int next = (s + 1) % p;
            for (int i = 0; i < 4; i++) ctx.put(slot, 4L * i, next, slot, 4L * i, 4);
            ctx.sync();
            ctx.put(slot, 0, next, slot, 0, 4);
            assertThrows(IllegalStateException.class, () -> ctx.put(slot, 4, next, slot, 4, 4));
            ctx.sync();
            // Shrinking the register below its use: registrations fail until entries are freed.
            ctx.resizeMemoryRegister(1);
            ctx.sync();
            ctx.deregister(extra);
            assertThrows(IllegalStateException.class, () -> ctx.registerLocal(Arena.ofAuto().allocate(4)));
            ctx.deregister(slot);
            Memslot again = ctx.registerLocal(area);
            ctx.deregister(again);
        });
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void aHugeResizeThrowsOutOfMemoryAndChangesNothing(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            assertThrows(LpfOutOfMemoryException.class, () -> ctx.resizeMessageQueue(Long.MAX_VALUE / 2));
            assertThrows(LpfOutOfMemoryException.class, () -> ctx.resizeMessageQueue(1L << 40));
            assertThrows(LpfOutOfMemoryException.class, () -> ctx.resizeMemoryRegister(Long.MAX_VALUE));
            ctx.sync();
            // Still 1 registration and 2 requests: exactly the old capacities.
            MemorySegment area = Arena.ofAuto().allocate(ValueLayout.JAVA_INT, 2);
            Memslot slot = ctx.registerGlobal(area);
            assertThrows(IllegalStateException.class, () -> ctx.registerLocal(Arena.ofAuto().allocate(4)));
            ctx.sync();
            area.setAtIndex(ValueLayout.JAVA_INT, 0, s);
            int next = (s + 1) % p;
            ctx.put(slot, 0, next, slot, 4, 4);
            ctx.put(slot, 0, next, slot, 4, 4);
            assertThrows(IllegalStateException.class, () -> ctx.put(slot, 0, next, slot, 4, 4));
            ctx.sync();
            assertEquals((s + p - 1) % p, area.getAtIndex(ValueLayout.JAVA_INT, 1));
            ctx.deregister(slot);
        });
    }
}
