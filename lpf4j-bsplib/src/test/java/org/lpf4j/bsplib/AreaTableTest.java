package org.lpf4j.bsplib;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The table of registered areas: an area whose last registration is removed leaves the table
 * (its key, and the reference to a heap area's array), and every other area is still found after
 * any order of removals (the probe runs stay whole).
 */
@Timeout(60)
class AreaTableTest {
    @Test
    void removalsInAnyOrderKeepEveryOtherAreaFoundAndFreeTheirKeys() {
        Random random = new Random(42);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment block = arena.allocate(8L * 4096, 8);
            for (int round = 0; round < 20; round++) {
                AreaTable table = new AreaTable();
                List<AreaTable.Reg> regs = new ArrayList<>();
                int n = 1 + random.nextInt(600);
                for (int k = 0; k < n; k++) {
                    // Native areas by address and heap areas by array, some pushed twice (a stack of two).
                    MemorySegment area = random.nextBoolean() ? block.asSlice(8L * k, 8) : MemorySegment.ofArray(new long[1 + k % 3]);
                    AreaTable.Reg r = new AreaTable.Reg(area, 1);
                    table.push(r);
                    regs.add(r);
                    if (random.nextInt(8) == 0) {
                        AreaTable.Reg again = new AreaTable.Reg(area, 1);
                        table.push(again);
                        regs.add(again);
                    }
                }
                Collections.shuffle(regs, random);
                List<AreaTable.Reg> left = new ArrayList<>(regs);
                for (AreaTable.Reg gone : regs) {
                    table.remove(gone);
                    left.remove(gone);
                    if (random.nextInt(16) == 0 || left.size() < 4) {
                        for (AreaTable.Reg r : left) {
                            AreaTable.Reg found = table.top(r.area);
                            boolean inStack = false;
                            for (AreaTable.Reg x = found; x != null; x = x.below) inStack |= x == r;
                            assertTrue(inStack, "round " + round + ": a registration left is not found after removals");
                        }
                    }
                    long areasLeft = left.stream().map(r -> r.area.isNative() ? (Object) r.area.address() : r.area.heapBase().get())
                            .distinct().count();
                    assertEquals(areasLeft, table.keys(), "round " + round + ": one key per area with a registration");
                }
                assertEquals(0, table.keys());
                for (AreaTable.Reg r : regs) assertNull(table.top(r.area), "round " + round + ": no registration is left");
            }
        }
    }

    @Test
    void anAreaWhoseRegistrationsAreAllRemovedIsNotKeptAlive() throws InterruptedException {
        AreaTable table = new AreaTable();
        long[] kept = new long[4];
        AreaTable.Reg stays = new AreaTable.Reg(MemorySegment.ofArray(kept), 1);
        table.push(stays);
        WeakReference<long[]> popped = pushAndRemove(table);
        for (int i = 0; i < 100 && popped.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertTrue(popped.get() == null, "the table still holds the array of an area it no longer registers");
        assertSame(stays, table.top(MemorySegment.ofArray(kept)));
        assertEquals(1, table.keys());
    }

    private static WeakReference<long[]> pushAndRemove(AreaTable table) {
        long[] array = new long[1 << 16];
        AreaTable.Reg r = new AreaTable.Reg(MemorySegment.ofArray(array), 1);
        table.push(r);
        assertSame(r, table.top(MemorySegment.ofArray(array)));
        table.remove(r);
        return new WeakReference<>(array);
    }
}
