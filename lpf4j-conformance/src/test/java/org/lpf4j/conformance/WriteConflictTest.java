package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Overlapping writes end as some serialisation of the requests: a region written by several
 * requests holds the bytes of exactly one of them, never a mix, also between a put and a get.
 */
@Timeout(120)
class WriteConflictTest {
    private static final int BLOCK = 64 * 1024;

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void concurrentPutsToOneRegionLeaveOneWritersBytes(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(p + 1);
            ctx.sync();
            MemorySegment src = Arena.ofAuto().allocate(BLOCK);
            MemorySegment dst = Arena.ofAuto().allocate(BLOCK);
            Memslot srcSlot = ctx.registerLocal(src);
            Memslot dstSlot = ctx.registerGlobal(dst);
            ctx.sync();
            for (int round = 0; round < 20; round++) {
                src.fill((byte) (1 + s + round));
                ctx.put(srcSlot, 0, round % p, dstSlot, 0, BLOCK); // everyone writes the same region
                ctx.sync();
                if (s == round % p) {
                    byte first = dst.get(ValueLayout.JAVA_BYTE, 0);
                    int writer = Math.floorMod(Byte.toUnsignedInt(first) - 1 - round, 256); // a byte names the writer modulo 256
                    assertTrue(writer < p, "unknown writer byte " + Byte.toUnsignedInt(first));
                    assertUniform(dst, 0, BLOCK, first, "round " + round);
                }
            }
            ctx.deregister(dstSlot);
            ctx.deregister(srcSlot);
        });
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void partiallyOverlappingPutsSerialise(String engine, int p) {
        // pid k writes [k·H, k·H + 2H) at pid 0 with byte k+1: each interior half-block is
        // covered by two writers and must hold exactly one of them.
        final int half = 8 * 1024;
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(p + 1);
            ctx.sync();
            MemorySegment src = Arena.ofAuto().allocate(2L * half);
            MemorySegment dst = Arena.ofAuto().allocate((long) (p + 1) * half);
            Memslot srcSlot = ctx.registerLocal(src);
            Memslot dstSlot = ctx.registerGlobal(dst);
            ctx.sync();
            for (int round = 0; round < 10; round++) {
                src.fill((byte) (s + 1));
                ctx.put(srcSlot, 0, 0, dstSlot, (long) s * half, 2L * half);
                ctx.sync();
                if (s == 0) {
                    assertUniform(dst, 0, half, (byte) 1, "first half-block");
                    for (int k = 1; k < p; k++) {
                        byte b = dst.get(ValueLayout.JAVA_BYTE, (long) k * half);
                        if (b != (byte) k && b != (byte) (k + 1)) { // writers k - 1 and k, modulo 256
                            fail("half-block " + k + " holds byte " + Byte.toUnsignedInt(b) + ", not " + k % 256 + " or " + (k + 1) % 256);
                        }
                        assertUniform(dst, (long) k * half, half, b, "half-block " + k);
                    }
                    assertUniform(dst, (long) p * half, half, (byte) p, "last half-block");
                    dst.fill((byte) 0);
                }
                ctx.sync();
            }
            ctx.deregister(dstSlot);
            ctx.deregister(srcSlot);
        });
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndManyP")
    void aGetAndAPutToTheSamePlaceSerialise(String engine, int p) {
        // pid 0 gets pid 1's block into its region R while every other pid puts its block into R.
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(p + 1);
            ctx.sync();
            MemorySegment block = Arena.ofAuto().allocate(BLOCK);
            MemorySegment region = Arena.ofAuto().allocate(BLOCK);
            Memslot blockSlot = ctx.registerGlobal(block);
            Memslot regionSlot = ctx.registerGlobal(region);
            block.fill((byte) (10 + s));
            ctx.sync();
            for (int round = 0; round < 20; round++) {
                if (s == 0) ctx.get(1, blockSlot, 0, regionSlot, 0, BLOCK);
                else if (s >= 2 || p == 2) ctx.put(blockSlot, 0, 0, regionSlot, 0, BLOCK);
                ctx.sync();
                if (s == 0) {
                    byte b = region.get(ValueLayout.JAVA_BYTE, 0);
                    int writer = Math.floorMod(Byte.toUnsignedInt(b) - 10, 256); // a byte names the writer modulo 256
                    assertTrue(writer >= 1 && writer < p, "region holds byte " + Byte.toUnsignedInt(b));
                    assertUniform(region, 0, BLOCK, b, "round " + round);
                }
            }
            ctx.deregister(regionSlot);
            ctx.deregister(blockSlot);
        });
    }

    static void assertUniform(MemorySegment seg, long offset, long length, byte expected, String what) {
        MemorySegment part = seg.asSlice(offset, length);
        for (long i = 0; i < length; i++) {
            byte b = part.get(ValueLayout.JAVA_BYTE, i);
            if (b != expected) fail(what + ": byte " + (offset + i) + " is " + b + " but byte " + offset + " is " + expected + " (mixed writers)");
        }
    }
}
