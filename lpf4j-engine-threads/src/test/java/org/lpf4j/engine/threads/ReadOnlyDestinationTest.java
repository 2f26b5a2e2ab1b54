package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A put into a read-only segment that its process registered globally cannot be refused at the
 * call (the caller does not know the remote segment), so it fails the section at the sync with a
 * {@link FatalException} that says the destination is read-only; the segment keeps its content.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadOnlyDestinationTest {

    /** 8 bytes are copied into the queue at the put, 4096 are read from the source during the sync. */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {8, 4096})
    void aPutIntoAReadOnlyGlobalSegmentFailsTheSectionNamingIt(int bytes) {
        MemorySegment[] target = new MemorySegment[1];
        FatalException e = assertThrows(FatalException.class, () -> ThreadsEngine.root().exec(2, (Context ctx) -> {
            MemorySegment x = Arena.ofAuto().allocate(bytes);
            x.fill((byte) (ctx.pid() + 1));
            if (ctx.pid() == 0) target[0] = x;
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            Memslot xs = ctx.registerGlobal(ctx.pid() == 0 ? x.asReadOnly() : x);
            ctx.sync();
            if (ctx.pid() == 1) ctx.put(xs, 0, 0, xs, 0, bytes);
            ctx.sync();
        }));
        assertTrue(mentions(e, "read-only"), "the failure names the read-only destination: " + describe(e));
        assertEquals(1, target[0].get(ValueLayout.JAVA_BYTE, 0), "the read-only segment kept its content");
        assertEquals(1, target[0].get(ValueLayout.JAVA_BYTE, bytes - 1), "the read-only segment kept its content");
    }

    /** Whether the message of {@code t} or of one of its causes or suppressed exceptions contains {@code text}. */
    private static boolean mentions(Throwable t, String text) {
        if (t == null) return false;
        if (String.valueOf(t.getMessage()).contains(text)) return true;
        for (Throwable s : t.getSuppressed()) if (mentions(s, text)) return true;
        return t.getCause() != t && mentions(t.getCause(), text);
    }

    private static String describe(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null && b.length() < 2000; c = c.getCause() == c ? null : c.getCause()) {
            b.append(c).append(" <- ");
        }
        return b.toString();
    }
}
