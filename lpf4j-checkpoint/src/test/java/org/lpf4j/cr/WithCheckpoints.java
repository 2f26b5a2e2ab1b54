package org.lpf4j.cr;

import org.lpf4j.Context;
import org.lpf4j.Spmd;

/** The SPMD functions of these tests: each process reserves room for a {@link Checkpoints} object and runs a body with it. */
final class WithCheckpoints {
    private WithCheckpoints() {}

    /** What a process does with its context and its checkpoints. */
    interface Body extends java.io.Serializable {
        void run(Context ctx, Checkpoints cr) throws Exception;
    }

    /** @return a function that reserves the slot and queue entries, opens {@code Checkpoints.init(ctx, program)}, runs the body and closes it */
    static Spmd spmd(String program, Body body) {
        return ctx -> {
            ctx.resizeMemoryRegister(Checkpoints.REGISTER_SLOTS);
            ctx.resizeMessageQueue(Checkpoints.queueEntries(ctx.nprocs()));
            ctx.sync();
            try (Checkpoints cr = Checkpoints.init(ctx, program)) {
                body.run(ctx, cr);
            }
        };
    }
}
