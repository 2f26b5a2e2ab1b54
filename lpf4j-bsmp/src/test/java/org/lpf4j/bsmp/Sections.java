package org.lpf4j.bsmp;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Test helpers: run a section of exactly p processes and set a context up for BSMP objects. */
final class Sections {
    private Sections() {}

    /** The process counts every multi-process test runs with: 1 .. 8, or those the system property {@code lpf.test.procs} lists (the scale tests). */
    static final int[] PROCS = System.getProperty("lpf.test.procs", "").isBlank() ? new int[] {1, 2, 3, 4, 5, 6, 7, 8}
            : java.util.Arrays.stream(System.getProperty("lpf.test.procs").strip().split("\\s*,\\s*")).mapToInt(Integer::parseInt).toArray();

    /** Runs {@code spmd} on exactly {@code p} processes of the threads engine. */
    static void run(int p, Spmd spmd) {
        Lpf.root().exec(p, ctx -> {
            assertEquals(p, ctx.nprocs(), "the machine must offer p processes");
            spmd.run(ctx);
        });
    }

    /**
     * Reserves register entries and queue room for {@code objects} BSMP objects of
     * {@code maxMessages} each plus {@code extraRegs}/{@code extraMsgs} of the test's own, and
     * syncs once.
     */
    static void reserve(Context ctx, int objects, long maxMessages, int extraRegs, int extraMsgs) {
        ctx.resizeMemoryRegister((long) objects * Bsmp.REGISTER_ENTRIES + extraRegs);
        ctx.resizeMessageQueue(objects * Bsmp.queueEntries(ctx.nprocs(), maxMessages) + extraMsgs);
        ctx.sync();
    }
}
