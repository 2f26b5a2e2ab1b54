package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** put and get deliver exactly the requested bytes, at the next sync, from and to any pid. */
@Timeout(60)
class DrmaTest {

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void putToTheNextPidArrivesAtTheSyncAndOnlyThen(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            MemorySegment src = Arena.ofAuto().allocate(64);
            MemorySegment dst = Arena.ofAuto().allocate(64);
            for (int i = 0; i < 64; i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) (s * 64 + i));
            Memslot srcSlot = ctx.registerLocal(src);
            Memslot dstSlot = ctx.registerGlobal(dst);
            ctx.sync();
            ctx.put(srcSlot, 8, (s + 1) % p, dstSlot, 16, 32);
            // Requests are executed by the sync: the destination of our own put to ourselves
            // (p = 1) and every destination written by others are still untouched here.
            if (p == 1) assertEquals(0, dst.get(ValueLayout.JAVA_BYTE, 16), "put executed before sync");
            ctx.sync();
            int from = (s + p - 1) % p;
            for (int i = 0; i < 64; i++) {
                byte expected = (i >= 16 && i < 48) ? (byte) (from * 64 + 8 + (i - 16)) : 0;
                assertEquals(expected, dst.get(ValueLayout.JAVA_BYTE, i), "pid " + s + " byte " + i);
            }
            ctx.deregister(dstSlot);
            ctx.deregister(srcSlot);
        });
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void getFromEveryPidReadsTheirGlobalAreas(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(p);
            ctx.sync();
            MemorySegment mine = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG, p);
            for (int k = 0; k < p; k++) mine.setAtIndex(ValueLayout.JAVA_LONG, k, 1000L * s + k);
            MemorySegment got = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG, p);
            Memslot mineSlot = ctx.registerGlobal(mine);
            Memslot gotSlot = ctx.registerLocal(got);
            ctx.sync();
            for (int k = 0; k < p; k++) ctx.get(k, mineSlot, 8L * s, gotSlot, 8L * k, 8);
            ctx.sync();
            for (int k = 0; k < p; k++) {
                assertEquals(1000L * k + s, got.getAtIndex(ValueLayout.JAVA_LONG, k), "pid " + s + " got from " + k);
            }
            ctx.deregister(gotSlot);
            ctx.deregister(mineSlot);
        });
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void zeroSizeRequestsAreValidAndChangeNothing(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(4);
            ctx.sync();
            MemorySegment area = Arena.ofAuto().allocate(8);
            Memslot slot = ctx.registerGlobal(area);
            Memslot empty = ctx.registerGlobal(MemorySegment.NULL);
            ctx.sync();
            int next = (ctx.pid() + 1) % p;
            ctx.put(slot, 8, next, slot, 8, 0);     // offset == size: an empty area at the end
            ctx.put(empty, 0, next, empty, 0, 0);    // a zero-size registration
            ctx.get(next, slot, 0, slot, 0, 0);
            ctx.sync();
            assertEquals(0L, area.get(ValueLayout.JAVA_LONG, 0));
            ctx.deregister(empty);
            ctx.deregister(slot);
        });
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void emptySuperstepsAndRepeatedSupersteps(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            MemorySegment cell = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG, 2);
            Memslot slot = ctx.registerGlobal(cell);
            ctx.sync();
            for (int step = 0; step < 200; step++) {
                if (step % 3 == 0) {
                    ctx.sync(); // empty superstep
                    continue;
                }
                cell.setAtIndex(ValueLayout.JAVA_LONG, 0, step * 100L + s);
                ctx.put(slot, 0, (s + 1) % p, slot, 8, 8);
                ctx.sync();
                long got = cell.getAtIndex(ValueLayout.JAVA_LONG, 1);
                assertEquals(step * 100L + (s + p - 1) % p, got, "step " + step);
            }
            ctx.deregister(slot);
        });
    }

    @ExpectsEngineRefusal
    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void superstepCountsTheCompletedSyncs(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            assertEquals(0, ctx.superstep());
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            assertEquals(1, ctx.superstep());
            Memslot slot = ctx.registerGlobal(Arena.ofAuto().allocate(8));
            try {
                ctx.put(slot, 0, 0, slot, 0, 0); // refused (not active yet): no superstep ends
            } catch (IllegalArgumentException expected) {
                assertEquals(1, ctx.superstep());
            }
            for (int i = 0; i < 10; i++) ctx.sync();
            assertEquals(11, ctx.superstep());
            ctx.deregister(slot);
        });
    }
}
