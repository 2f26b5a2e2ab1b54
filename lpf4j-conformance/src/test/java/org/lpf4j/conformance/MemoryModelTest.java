package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A sync is a happens-before edge: plain array writes before it are what its copies read, and
 * plain array reads after it see what it delivered. Uses heap segments over plain long[] arrays
 * and no volatile access in user code, over many supersteps, so that a missing edge shows up as
 * stale values.
 */
@Timeout(120)
class MemoryModelTest {
    private static final int WORDS = 256;

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("org.lpf4j.conformance.Matrix#engineAndP")
    void plainWritesBeforeSyncArePutAndPlainReadsAfterSyncSeeThem(String engine, int p) {
        Matrix.exec(engine, p, ctx -> {
            int s = ctx.pid();
            long[] out = new long[WORDS];
            long[] in = new long[WORDS];
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot outSlot = ctx.registerLocal(MemorySegment.ofArray(out));
            Memslot inSlot = ctx.registerGlobal(MemorySegment.ofArray(in));
            ctx.sync();
            int from = (s + p - 1) % p;
            for (int step = 1; step <= 300; step++) {
                for (int i = 0; i < WORDS; i++) out[i] = ((long) step << 32) | ((long) s << 16) | i;
                ctx.put(outSlot, 0, (s + 1) % p, inSlot, 0, 8L * WORDS);
                ctx.sync();
                for (int i = 0; i < WORDS; i++) {
                    long expected = ((long) step << 32) | ((long) from << 16) | i;
                    if (in[i] != expected) {
                        assertEquals(expected, in[i], "pid " + s + " step " + step + " word " + i);
                    }
                }
            }
            ctx.deregister(inSlot);
            ctx.deregister(outSlot);
        });
    }
}
