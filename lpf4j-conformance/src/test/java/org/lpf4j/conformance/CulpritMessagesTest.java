package org.lpf4j.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.debug.Debug;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Messages that name the culprit, on every engine and under the debug layer: a hand-built
 * Memslot is "not issued by this context" (not "deregistered"), and a range whose end overflows
 * is printed as the user's offset and size (not as a wrapped interval).
 */
@Timeout(60)
class CulpritMessagesTest {

    static Stream<String> enginesAndDebug() {
        return Matrix.engines().flatMap(e -> Stream.of(e, e + "+debug"));
    }

    private static Context root(String name) {
        return name.endsWith("+debug") ? Debug.wrap(Lpf.root(name.substring(0, name.length() - 6))) : Lpf.root(name);
    }

    /** A context with one global slot of 8 bytes, usable (the debug layer fails a context at its first report). */
    private static Memslot oneSlot(Context ctx) {
        ctx.resizeMemoryRegister(1);
        ctx.resizeMessageQueue(1);
        ctx.sync();
        Memslot real = ctx.registerGlobal(Arena.ofAuto().allocate(8));
        ctx.sync();
        return real;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("enginesAndDebug")
    void aHandBuiltMemslotIsNotIssuedByThisContext(String engine) {
        for (int kind = 0; kind < 2; kind++) {
            for (boolean put : new boolean[] {true, false}) {
                Context ctx = root(engine);
                Memslot real = oneSlot(ctx);
                // Made by hand, with the real slot's owner and id, or with an owner of its own: names nothing.
                Memslot forged = kind == 0 ? new Memslot(real.owner(), real.id(), true, 8) : new Memslot(new Object(), 0, true, 8);
                Throwable e = assertThrows(Throwable.class, put ? () -> ctx.put(real, 0, 0, forged, 0, 8) : () -> ctx.deregister(forged));
                assertTrue(e.getMessage().contains("global#0(8 B) was not issued by this context"), e.getMessage());
                assertFalse(e.getMessage().contains("deregistered"), e.getMessage());
            }
        }
        Context ctx = root(engine);
        Memslot real = oneSlot(ctx);
        ctx.deregister(real);
        Throwable again = assertThrows(Throwable.class, () -> ctx.deregister(real));
        assertTrue(again.getMessage().contains("already deregistered"), again.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("enginesAndDebug")
    void anOverflowingRangeIsPrintedAsTheUsersValues(String engine) {
        Context ctx = root(engine);
        ctx.resizeMemoryRegister(1);
        ctx.resizeMessageQueue(1);
        ctx.sync();
        MemorySegment mem = Arena.ofAuto().allocate(16);
        Memslot slot = ctx.registerGlobal(mem);
        ctx.sync();
        long offset = Long.MAX_VALUE - 4;
        Throwable e = assertThrows(Throwable.class, () -> ctx.put(slot, offset, 0, slot, 0, 8));
        assertTrue(e.getMessage().contains("offset=" + offset + ", size=8"), e.getMessage());
        assertFalse(e.getMessage().contains("[" + offset + ", -"), e.getMessage());
        // The same at the destination, found at the sync.
        Context other = root(engine);
        Memslot dst = oneSlot(other);
        Throwable r = assertThrows(Throwable.class, () -> {
            other.put(dst, 0, 0, dst, offset, 8);
            other.sync();
        });
        StringBuilder chain = new StringBuilder();
        for (Throwable t = r; t != null; t = t.getCause()) chain.append(t.getMessage()).append(" / ");
        assertTrue(chain.toString().contains("offset=" + offset + ", size=8"), chain.toString());
        assertFalse(chain.toString().contains("[" + offset + ", -"), chain.toString());
    }
}
