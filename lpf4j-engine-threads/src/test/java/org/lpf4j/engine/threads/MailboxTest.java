package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The layout of a put queue: the first put to a pid rides in that pid's mailbox line when it is
 * at most 24 bytes, later ones are chained records (buffered up to 256 bytes, read from the
 * source beyond). Every order of sizes around those limits must deliver every byte, combining
 * puts included.
 */
@Timeout(60)
class MailboxTest {
    private static final long[][] SIZE_SEQUENCES = {
        {8}, {24}, {25}, {0, 8}, {24, 8, 300}, {25, 8, 24}, {300, 24, 8}, {256, 257, 1}, {8, 8, 8, 8, 8, 8},
    };

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 8})
    void everyOrderOfSizesAroundTheLimitsDelivers(int p) {
        MsgAttr sum = MsgAttr.combining(8, (count, src, sOff, dst, dOff) -> {
            for (long k = 0; k < 8L * count; k += 8) {
                dst.set(ValueLayout.JAVA_LONG, dOff + k, dst.get(ValueLayout.JAVA_LONG, dOff + k) + src.get(ValueLayout.JAVA_LONG, sOff + k));
            }
        });
        ThreadsEngine.root().exec(p, ctx -> {
            int s = ctx.pid(), next = (s + 1) % p, prev = (s + p - 1) % p;
            MemorySegment out = Arena.ofAuto().allocate(4096);
            MemorySegment in = Arena.ofAuto().allocate(4096);
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(8);
            ctx.sync();
            Memslot outSlot = ctx.registerLocal(out);
            Memslot inSlot = ctx.registerGlobal(in);
            ctx.sync();
            for (int round = 0; round < 3; round++) {
                for (long[] sizes : SIZE_SEQUENCES) {
                    for (int i = 0; i < 4096; i++) out.set(ValueLayout.JAVA_BYTE, i, (byte) (s * 31 + i * 7 + round));
                    in.fill((byte) 0);
                    out.set(ValueLayout.JAVA_LONG, 4088, 1000L + s);
                    in.set(ValueLayout.JAVA_LONG, 4088, 5L);
                    ctx.sync(); // the resets above happen in a superstep of their own
                    long offset = 0;
                    for (long size : sizes) {
                        ctx.put(outSlot, offset, next, inSlot, offset, size);
                        offset += size + 3; // disjoint destinations, odd alignments
                    }
                    ctx.put(outSlot, 4088, next, inSlot, 4088, 8, sum); // a combining put too
                    ctx.sync();
                    offset = 0;
                    for (long size : sizes) {
                        for (long i = offset; i < offset + size; i++) {
                            assertEquals((byte) (prev * 31 + i * 7 + round), in.get(ValueLayout.JAVA_BYTE, i),
                                    "sizes " + java.util.Arrays.toString(sizes) + " byte " + i);
                        }
                        offset += size + 3;
                    }
                    assertEquals(0, in.get(ValueLayout.JAVA_BYTE, offset), "nothing past the last put");
                    assertEquals(1005L + prev, in.get(ValueLayout.JAVA_LONG, 4088), "the combining put");
                }
            }
            ctx.deregister(inSlot);
            ctx.deregister(outSlot);
        });
    }
}
