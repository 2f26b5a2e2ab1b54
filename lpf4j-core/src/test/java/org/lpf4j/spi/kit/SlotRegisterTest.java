package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Test;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The kit's register, capacities and argument rules, without any engine. */
class SlotRegisterTest {
    private static MemorySegment seg(long n) { return Arena.ofAuto().allocate(n); }

    private static SlotRegister register(int capacity) {
        SlotRegister r = new SlotRegister();
        r.resize(0, capacity);
        r.capacity().applyAtSync();
        return r;
    }

    @Test
    void globalIdsAgreeWhateverLocalRegistrationsEachProcessMakes() {
        SlotRegister a = register(8), b = register(8);
        a.registerLocal(seg(8));
        a.registerLocal(seg(8));
        Memslot ga = a.registerGlobal(seg(8), 0);
        Memslot gb = b.registerGlobal(seg(8), 0);
        assertEquals(ga.id(), gb.id());
        a.deregister(ga, 0, 1);
        b.deregister(gb, 0, 1);
        b.registerLocal(seg(8));
        assertEquals(a.registerGlobal(seg(8), 1).id(), b.registerGlobal(seg(8), 1).id());
    }

    @Test
    void aGlobalSlotIsActiveFromTheNextSyncAndIdsAreReused() {
        SlotRegister r = register(2);
        MemorySegment m = seg(16);
        Memslot g = r.registerGlobal(m, 5);
        assertFalse(r.isUsableGlobal(g, 5));
        assertTrue(r.isPending(g, 5));
        assertNull(r.localArea(g, 5, true));
        assertTrue(r.describeUnusable(g, 5).contains("usable only after the next sync"));
        assertTrue(r.isUsableGlobal(g, 6));
        assertSame(m, r.globalSegment(g.id()));
        assertTrue(r.localArea(g, 6, true).isReadOnly());
        r.deregister(g, 0, 6);
        assertNull(r.globalSegment(g.id()));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> r.deregister(g, 0, 6)).getMessage()
                .contains("already deregistered"));
        assertEquals(g.id(), r.registerGlobal(seg(8), 6).id());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> r.deregister(g, 0, 6)).getMessage()
                .contains("already deregistered"), "a stale handle must not deregister its id's new slot");
    }

    @Test
    void capacityIsStagedUntilTheSyncAndShrinkingIsDelayed() {
        SlotRegister r = register(1);
        r.registerLocal(seg(1));
        r.resize(0, 2);
        assertThrows(IllegalStateException.class, () -> r.checkRegistrable(seg(1), "registerLocal", 0, 1));
        r.capacity().applyAtSync();
        r.checkRegistrable(seg(1), "registerLocal", 0, 1);
        r.registerLocal(seg(1));
        r.resize(0, 0);
        assertEquals(2, r.capacity().current(), "shrinking waits for the sync");
        r.capacity().applyAtSync();
        assertTrue(assertThrows(IllegalStateException.class, () -> r.checkRegistrable(seg(1), "registerLocal", 0, 1))
                .getMessage().contains("memory register full: 2 of 0 slots in use"));
    }

    @Test
    void anImpossibleCapacityIsOutOfMemoryWithNoEffect() {
        SlotRegister r = register(3);
        assertThrows(LpfOutOfMemoryException.class, () -> r.resize(0, Long.MAX_VALUE));
        assertEquals(3, r.capacity().pending());
        assertThrows(IllegalArgumentException.class, () -> r.resize(0, -1));
        assertEquals(3, r.capacity().pending());
    }

    @Test
    void theRulesReportTheFirstBrokenOneWithItsKind() {
        SlotRegister r = register(4);
        Memslot l = r.registerLocal(seg(16));
        Memslot g = r.registerGlobal(seg(16), 0);
        assertEquals(RequestChecks.Kind.INACTIVE_SLOT,
                RequestChecks.putViolation(r, 0, 2, l, 0, 1, g, 0, 8, MsgAttr.DEFAULT, 0, 1, true).kind());
        assertNull(RequestChecks.putViolation(r, 1, 2, l, 0, 1, g, 0, 8, MsgAttr.DEFAULT, 0, 1, true));
        assertEquals(RequestChecks.Kind.BAD_PID, RequestChecks.putViolation(r, 1, 2, l, 0, 2, g, 0, 8, MsgAttr.DEFAULT, 0, 1, true).kind());
        assertEquals(RequestChecks.Kind.OUT_OF_BOUNDS, RequestChecks.putViolation(r, 1, 2, l, 12, 1, g, 0, 8, MsgAttr.DEFAULT, 0, 1, true).kind());
        assertEquals(RequestChecks.Kind.LOCAL_SLOT_AS_REMOTE, RequestChecks.getViolation(r, 1, 2, 0, l, 0, l, 0, 8, MsgAttr.DEFAULT, 0, 1).kind());
        assertEquals(RequestChecks.Kind.QUEUE_FULL, RequestChecks.getViolation(r, 1, 2, 0, g, 0, l, 0, 8, MsgAttr.DEFAULT, 1, 1).kind());
        MsgAttr sum = MsgAttr.combining(8, (n, a, ao, b, bo) -> { });
        assertNull(RequestChecks.putViolation(r, 1, 2, l, 0, 1, g, 0, 8, sum, 0, 1, true));
        RequestChecks.Violation refused = RequestChecks.putViolation(r, 1, 2, l, 0, 1, g, 0, 8, sum, 0, 1, false);
        assertEquals(RequestChecks.Kind.BAD_ARGUMENT, refused.kind());
        assertTrue(refused.problem().contains("Capability.COMBINING_PUTS"), refused.problem());
        var e = assertThrows(IndexOutOfBoundsException.class,
                () -> RequestChecks.checkPut(r, 1, 0, 2, l, 12, 1, g, 0, 8, MsgAttr.DEFAULT, 0, 1, true));
        assertTrue(e.getMessage().startsWith("put(srcSlot=local#0(16 B), srcOffset=12"), e.getMessage());
        assertTrue(e.getMessage().contains("source area [12, 20) exceeds the 16 registered bytes"), e.getMessage());
    }

    @Test
    void leastSquaresRecoversALine() {
        double[] fit = ProbeHarness.leastSquares(new double[] {1, 2, 4, 8}, new double[] {5, 7, 11, 19});
        assertEquals(3, fit[0], 1e-12);
        assertEquals(2, fit[1], 1e-12);
    }
}
