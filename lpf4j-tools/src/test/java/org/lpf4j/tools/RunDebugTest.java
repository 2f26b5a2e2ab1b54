package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lpf run --debug}: the checking layer reports a programming error the plain run lets pass. */
@Timeout(60)
class RunDebugTest {
    /** Returns with a slot still registered: legal for the engine, a programming error for the debug layer. */
    public static final class LeavesASlot implements Spmd {
        private static final long serialVersionUID = 1L;

        /** For {@code lpf run}. */
        public LeavesASlot() {}

        @Override
        public void run(Context ctx) {
            ctx.resizeMemoryRegister(1);
            ctx.sync();
            ctx.registerLocal(MemorySegment.ofArray(new byte[8]));
        }
    }

    @Test
    void debugReportsWhatThePlainRunLetsPass() {
        Cli.run("run", "-p", "3", LeavesASlot.class.getName()).expect(0);
        Cli debug = Cli.run("run", "-p", "3", "--debug", LeavesASlot.class.getName())
                .expectError(ProgramFailure.EXIT_CODE, "lpf debug [slots-left-registered] return from the SPMD function at"
                        + " RunDebugTest$LeavesASlot.run(RunDebugTest.java:");
        assertTrue(debug.err().contains("1 slot(s) still registered: [local#0(8 B)"), debug.err());
        String first = debug.out().lines().findFirst().orElse("");
        assertTrue(first.startsWith("lpf run [debug layer on (--debug)"), first);
        assertTrue(first.contains("on the threads engine") && first.contains("p = 3 (-p 3)"), first);
        assertFalse(Lpf.DEBUG.get(), "--debug is undone when the command ends");
        Cli.assertNoLpfThreads();
    }
}
