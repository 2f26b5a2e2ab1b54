package org.lpf4j.bsplib;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.FatalException;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** abort, and processes that stop syncing: every process ends with FatalException, never a hang. */
@Timeout(60)
class FailureTest {
    static final int[] PROCS = Run.PROCS;
    static final int[] MULTI = Run.MULTI;

    static String all(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void abortEndsTheWholeSectionWithItsMessage(int p) {
        FatalException e = assertThrows(FatalException.class, () -> Run.bsp(p, bsp -> {
            bsp.sync();
            if (bsp.pid() == p - 1) throw bsp.abort("bad input " + 42);
            // The others must not hang: their next sync fails.
            FatalException f = assertThrows(FatalException.class, () -> {
                for (int i = 0; i < 1000; i++) bsp.sync();
            });
            throw f;
        }));
        String text = all(e);
        assertTrue(text.contains("bsp_abort at pid " + (p - 1) + " of " + p + ": bad input 42"), text);
    }

    @ParameterizedTest
    @FieldSource("MULTI")
    void aProcessThatStopsSyncingFailsTheOthers(int p) {
        // sync on every process but 0 (0 returns), and the converse: sync only on process 0.
        assertThrows(FatalException.class, () -> Run.bsp(p, bsp -> {
            if (bsp.pid() != 0) bsp.sync();
        }));
        assertThrows(FatalException.class, () -> Run.bsp(p, bsp -> {
            if (bsp.pid() == 0) bsp.sync();
        }));
    }
}
