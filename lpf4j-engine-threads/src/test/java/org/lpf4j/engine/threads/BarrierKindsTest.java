package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.spi.Parameters;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Both barrier algorithms, forced, at every p (the conformance suite runs whichever 'auto'
 * picks): correct data over many supersteps of every kind (empty, only buffered puts, with
 * unbuffered puts and gets), and failure detection without hangs.
 */
@Timeout(120)
class BarrierKindsTest {

    static Stream<Arguments> kindAndP() {
        List<Arguments> list = new ArrayList<>();
        for (String kind : new String[] {"central", "dissemination"}) {
            for (int p : new int[] {1, 2, 3, 4, 5, 8}) list.add(Arguments.of(kind, p));
        }
        return list.stream();
    }

    private static void withBarrier(String kind, Runnable body) {
        Parameters.set("lpf.engine.threads.barrier", kind);
        try {
            body.run();
        } finally {
            Parameters.clear("lpf.engine.threads.barrier");
        }
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("kindAndP")
    void everyKindOfSuperstepDeliversItsData(String kind, int p) {
        withBarrier(kind, () -> ThreadsEngine.root().exec(p, ctx -> {
            int s = ctx.pid(), next = (s + 1) % p, prev = (s + p - 1) % p;
            MemorySegment mem = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG, 1024);
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot slot = ctx.registerGlobal(mem);
            ctx.sync();
            for (int step = 0; step < 1500; step++) {
                long value = step * 100L + s;
                mem.setAtIndex(ValueLayout.JAVA_LONG, 0, value);
                mem.setAtIndex(ValueLayout.JAVA_LONG, 511, value);
                int kindOfStep = step % 4;
                if (kindOfStep == 1) ctx.put(slot, 0, next, slot, 4096, 8);              // buffered only
                else if (kindOfStep == 2) ctx.put(slot, 0, next, slot, 4096, 4096);      // unbuffered
                else if (kindOfStep == 3) ctx.get(prev, slot, 0, slot, 4096, 4096);      // get
                ctx.sync();                                                              // (0: empty)
                if (kindOfStep != 0) {
                    long expected = step * 100L + prev;
                    assertEquals(expected, mem.getAtIndex(ValueLayout.JAVA_LONG, 512), "step " + step);
                    if (kindOfStep != 1) assertEquals(expected, mem.getAtIndex(ValueLayout.JAVA_LONG, 1023), "step " + step);
                }
            }
            ctx.deregister(slot);
        }));
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("kindAndP")
    void anEarlyReturnFailsTheOthersAndEqualSyncsNeverDo(String kind, int p) {
        withBarrier(kind, () -> {
            for (int round = 0; round < 10; round++) { // staggered returns after equal syncs: fine
                int r = round;
                ThreadsEngine.root().exec(p, ctx -> {
                    for (int i = 0; i < 3; i++) ctx.sync();
                    if ((ctx.pid() + r) % 2 == 0) Thread.yield();
                });
            }
            if (p == 1) return;
            AtomicInteger fatal = new AtomicInteger();
            assertThrows(FatalException.class, () -> ThreadsEngine.root().exec(p, ctx -> {
                ctx.sync();
                if (ctx.pid() == p / 2) return;
                try {
                    ctx.sync();
                } catch (FatalException e) {
                    fatal.incrementAndGet();
                }
            }));
            assertEquals(p - 1, fatal.get());
        });
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("kindAndP")
    void aRehookMismatchFailsBothSides(String kind, int p) {
        if (p == 1) return;
        withBarrier(kind, () -> {
            AtomicInteger fatal = new AtomicInteger();
            FatalException e = assertThrows(FatalException.class, () -> ThreadsEngine.root().exec(p, ctx -> {
                ctx.sync();
                try {
                    if (ctx.pid() == p - 1) ctx.rehook(inner -> inner.sync(), Args.NONE);
                    else ctx.sync();
                } catch (FatalException f) {
                    fatal.incrementAndGet();
                }
            }));
            assertEquals(p, fatal.get());
            assertInstanceOf(FatalException.class, e);
        });
    }
}
