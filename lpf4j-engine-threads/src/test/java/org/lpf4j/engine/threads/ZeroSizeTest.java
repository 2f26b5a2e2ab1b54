package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Zero-byte requests: legal on every slot, including one registered over {@link MemorySegment#NULL},
 * at any offset up to the end of the area; they move nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZeroSizeTest {
    private static final int BYTES = 16;

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void zeroBytePutsAndGetsOnANullSlotSucceedAndChangeNothing(int p) {
        AtomicInteger changed = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        ThreadsEngine.root().exec(p, ctx -> {
            int s = ctx.pid();
            MemorySegment data = Arena.ofAuto().allocate(BYTES);
            for (int k = 0; k < BYTES; k++) data.set(ValueLayout.JAVA_BYTE, k, (byte) (s * 16 + k));
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(8);
            ctx.sync();
            Memslot none = ctx.registerGlobal(MemorySegment.NULL);
            Memslot real = ctx.registerGlobal(data);
            ctx.sync();
            for (int round = 0; round < 3; round++) {
                int next = (s + 1 + round) % p;
                ctx.put(none, 0, next, none, 0, 0);
                ctx.get(next, none, 0, none, 0, 0);
                ctx.put(none, 0, next, real, BYTES, 0);   // at the very end of the area
                ctx.put(real, BYTES, next, none, 0, 0);
                ctx.get(next, real, 5, none, 0, 0);
                ctx.get(next, none, 0, real, 7, 0);
                ctx.put(real, 3, next, real, 11, 0);
                ctx.get(next, real, 0, real, BYTES, 0);
                ctx.sync();
            }
            ctx.deregister(real);
            ctx.deregister(none);
            for (int k = 0; k < BYTES; k++) {
                if (data.get(ValueLayout.JAVA_BYTE, k) != (byte) (s * 16 + k)) changed.incrementAndGet();
            }
            done.incrementAndGet();
        });
        assertEquals(p, done.get(), "processes that completed every superstep");
        assertEquals(0, changed.get(), "bytes changed by zero-byte requests");
    }
}
