package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The combining-put extension ({@link MsgAttr#combining}) of the threads engine: what is particular to
 * it (the operator's read-only source, mixing with plain puts, copies, refusals, a throwing operator);
 * sums and maxima into every process at every p run in the conformance suite (CombiningPutsTest).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CombiningPutTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private static final MsgAttr.ElementCombiner SUM = (n, src, so, dst, d) -> {
        for (long k = 0; k < n; k++) {
            dst.set(LONG, d + 8 * k, dst.get(LONG, d + 8 * k) + src.get(LONG, so + 8 * k));
        }
    };

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {8, 256, 264, 8000})
    void theOperatorGetsAReadOnlySource(int bytes) {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger writable = new AtomicInteger();
        MsgAttr sum = MsgAttr.combining(8, (n, src, so, dst, d) -> {
            calls.incrementAndGet();
            if (!src.isReadOnly()) writable.incrementAndGet();
            SUM.combine(n, src, so, dst, d);
        });
        long[] first = new long[1];
        ThreadsEngine.root().exec(2, ctx -> {
            MemorySegment x = Arena.ofAuto().allocate(bytes);
            for (long k = 0; k < bytes / 8; k++) x.setAtIndex(ValueLayout.JAVA_LONG, k, 3);
            Memslot xs = registerOne(ctx, x);
            if (ctx.pid() == 1) ctx.put(xs, 0, 0, xs, 0, bytes, sum);
            ctx.sync();
            if (ctx.pid() == 0) first[0] = x.get(LONG, 0);
        });
        assertEquals(6, first[0], "3 + 3");
        assertTrue(calls.get() > 0, "the operator ran");
        assertEquals(0, writable.get(), "calls whose source segment was writable (of " + calls.get() + ")");
    }

    /** Room for one slot and one request, then {@code x} registered globally and usable. */
    private static Memslot registerOne(Context ctx, MemorySegment x) {
        ctx.resizeMemoryRegister(1);
        ctx.resizeMessageQueue(1);
        ctx.sync();
        Memslot xs = ctx.registerGlobal(x);
        ctx.sync();
        return xs;
    }

    @Test
    void combiningAndPlainPutToOneDestinationEndAsSomeSerialisation() {
        MsgAttr sum = MsgAttr.combining(8, SUM);
        long[] result = new long[1];
        ThreadsEngine.root().exec(3, ctx -> {
            MemorySegment x = Arena.ofAuto().allocate(8);
            x.set(LONG, 0, ctx.pid() == 0 ? 10 : ctx.pid() == 1 ? 5 : 3);
            Memslot xs = registerOne(ctx, x);
            if (ctx.pid() == 1) ctx.put(xs, 0, 0, xs, 0, 8);      // plain: 5
            if (ctx.pid() == 2) ctx.put(xs, 0, 0, xs, 0, 8, sum); // combining: +3
            ctx.sync();
            if (ctx.pid() == 0) result[0] = x.get(LONG, 0);
        });
        // plain then combining: 5 + 3; combining then plain: 5. Never 10 + 3 alone or a byte mix.
        assertTrue(result[0] == 8 || result[0] == 5, "result " + result[0]);
    }

    @Test
    void nextSuperstepCopiesAgainAfterACombiningPut() {
        MsgAttr sum = MsgAttr.combining(8, SUM);
        long[] result = new long[2];
        ThreadsEngine.root().exec(2, ctx -> {
            MemorySegment x = Arena.ofAuto().allocate(16);
            x.set(LONG, 0, 4);
            x.set(LONG, 8, 4);
            Memslot xs = registerOne(ctx, x);
            if (ctx.pid() == 1) ctx.put(xs, 0, 0, xs, 0, 8, sum); // x0 at pid 0: 4 + 4
            ctx.sync();
            if (ctx.pid() == 1) ctx.put(xs, 8, 0, xs, 8, 8);      // same queue index, plain: 4
            ctx.sync();
            if (ctx.pid() == 0) {
                result[0] = x.get(LONG, 0);
                result[1] = x.get(LONG, 8);
            }
        });
        assertEquals(8, result[0]);
        assertEquals(4, result[1]);
    }

    @Test
    void badUseIsRefusedAtTheCallAndTakesNoQueueEntry() {
        MsgAttr sum = MsgAttr.combining(8, SUM);
        String[] messages = new String[2];
        long[] result = new long[1];
        ThreadsEngine.root().exec(2, ctx -> {
            MemorySegment x = Arena.ofAuto().allocate(16);
            x.set(LONG, 0, 1);
            Memslot xs = registerOne(ctx, x);
            if (ctx.pid() == 1) {
                messages[0] = assertThrows(IllegalArgumentException.class,
                        () -> ctx.put(xs, 0, 0, xs, 0, 12, sum)).getMessage();
                messages[1] = assertThrows(IllegalArgumentException.class,
                        () -> ctx.get(0, xs, 0, xs, 0, 8, sum)).getMessage();
                ctx.put(xs, 0, 0, xs, 0, 8, sum); // the one queue entry is still free
            }
            ctx.sync();
            if (ctx.pid() == 0) result[0] = x.get(LONG, 0);
        });
        assertTrue(messages[0].contains("multiple of the element size 8"), messages[0]);
        assertTrue(messages[1].contains("put only"), messages[1]);
        assertEquals(2, result[0]);
        assertThrows(IllegalArgumentException.class, () -> MsgAttr.combining(0, SUM));
    }

    @Test
    void aThrowingOperatorFailsTheSection() {
        MsgAttr bad = MsgAttr.combining(1, (n, src, so, dst, d) -> {
            throw new ArithmeticException("combiner refused");
        });
        FatalException e = assertThrows(FatalException.class, () -> ThreadsEngine.root().exec(2, (Context ctx) -> {
            MemorySegment x = Arena.ofAuto().allocate(4);
            Memslot xs = registerOne(ctx, x);
            ctx.put(xs, 0, 1 - ctx.pid(), xs, 0, 4, bad);
            ctx.sync();
        }));
        assertTrue(String.valueOf(e.getMessage()).contains("combiner refused")
                || String.valueOf(e.getCause()).contains("combiner refused"), String.valueOf(e));
    }
}
