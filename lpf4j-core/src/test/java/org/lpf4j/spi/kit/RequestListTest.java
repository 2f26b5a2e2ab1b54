package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Test;
import org.lpf4j.MsgAttr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class RequestListTest {
    private static final MsgAttr SUM = MsgAttr.combining(8, (n, src, so, dst, d) -> { });

    @Test
    void requestsSurviveGrowthAndClearDropsReferences() {
        MemorySegment a = Arena.ofAuto().allocate(16), b = Arena.ofAuto().allocate(16);
        RequestList l = new RequestList();
        l.ensure(1);
        l.addPut(a, 1, 2, 3, 4, 5, MsgAttr.DEFAULT, 7);
        l.ensure(4); // grows: the queued put must survive
        l.addPut(b, 6, 0, 1, 2, 3, SUM, 9);
        l.addGet(1, 2, 3, b, 4, 5);
        assertEquals(3, l.count());
        assertSame(a, l.putSource[0]);
        assertEquals(1, l.putSrcOffset[0]);
        assertEquals(2, l.putPid[0]);
        assertEquals(3, l.putSlot[0]);
        assertEquals(4, l.putDstOffset[0]);
        assertEquals(5, l.putSize[0]);
        assertNull(l.putAttr[0], "a plain put carries no attribute");
        assertEquals(7, l.putTag[0]);
        assertSame(SUM, l.putAttr[1]);
        assertEquals(9, l.putTag[1]);
        assertEquals(1, l.getPid[0]);
        assertEquals(2, l.getSlot[0]);
        assertEquals(3, l.getSrcOffset[0]);
        assertSame(b, l.getDestination[0]);
        assertEquals(4, l.getDstOffset[0]);
        assertEquals(5, l.getSize[0]);
        l.clear();
        assertEquals(0, l.count());
        assertNull(l.putSource[0]);
        assertNull(l.putSource[1]);
        assertNull(l.putAttr[1]);
        assertNull(l.getDestination[0]);
        assertEquals(4, l.putPid.length, "clearing keeps the capacity");
    }
}
