package org.lpf4j.bsmp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.debug.Check;
import org.lpf4j.debug.Debug;
import org.lpf4j.debug.LpfProgrammingError;
import org.lpf4j.engine.threads.ThreadsEngine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BSMP over the debug layer: correct traffic raises no report (no false positive, with the
 * context sized as {@link Bsmp} documents), and a misuse is reported at the user's line, not at
 * the library's.
 */
@Timeout(60)
class BsmpUnderDebugTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void randomTrafficPassesTheDebugLayer(int p) {
        Debug.wrap(ThreadsEngine.root()).exec(p, ctx -> {
            assertEquals(p, ctx.nprocs());
            BsmpRandomTrafficTest.exchange(ctx, 30);
        });
    }

    @Test
    void aMisuseInsideBsmpIsReportedAtTheCallersLine() {
        AtomicInteger line = new AtomicInteger();
        FatalException e = assertThrows(FatalException.class, () -> Debug.wrap(ThreadsEngine.root()).exec(2, ctx -> {
            Sections.reserve(ctx, 1, 1, 1, 0);
            MemorySegment src = Arena.ofAuto().allocate(16, 8);
            Memslot slot = ctx.registerLocal(src);
            try (Bsmp bsmp = Bsmp.create(ctx, 64, 8, 1)) {
                line.set(line()); bsmp.send(1 - ctx.pid(), slot, 0, slot, 8, 8);
                src.set(ValueLayout.JAVA_LONG, 8, 42); // the payload must stay untouched until the sync
                bsmp.sync();
            }
        }));
        LpfProgrammingError report = assertInstanceOf(LpfProgrammingError.class, e, () -> "got " + e);
        assertEquals(Check.READ_WRITE_CONFLICT, report.check(), report.getMessage());
        assertTrue(report.getMessage().contains("(BsmpUnderDebugTest.java:" + line.get() + ") via Bsmp.send"),
                report.getMessage());
    }

    /** @return the caller's line number */
    private static int line() {
        return StackWalker.getInstance().walk(s -> s.skip(1).findFirst().orElseThrow().getLineNumber());
    }
}
