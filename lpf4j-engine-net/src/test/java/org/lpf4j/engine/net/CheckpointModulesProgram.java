package org.lpf4j.engine.net;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.cr.Checkpoints;
import org.lpf4j.spi.Parameters;

/**
 * The program of {@link CheckpointModulesTest}, one rank per JVM, three sections of 3 processes:
 * pid 2 sets {@code lpf.cr=memory} in its own JVM only (its {@code Checkpoints.init} must refuse,
 * naming both modules); then rank 0 sets it before its {@code exec} (every process must select
 * {@code memory}); then rank 0 clears it (every process must select {@code none} again).
 */
public final class CheckpointModulesProgram {
    private CheckpointModulesProgram() {}

    public static void main(String[] args) {
        try {
            Lpf.root().exec(3, ctx -> {
                if (ctx.pid() == 2) Parameters.set("lpf.cr", "memory");
                try {
                    selects(ctx, "(any)");
                } finally {
                    if (ctx.pid() == 2) Parameters.clear("lpf.cr");
                }
            });
            System.out.println("MISMATCH NOT SEEN");
        } catch (FatalException e) {
            StringBuilder causes = new StringBuilder();
            for (Throwable c = e; c != null; c = c.getCause()) {
                causes.append(c.getMessage()).append(" | ");
                for (Throwable s : c.getSuppressed()) causes.append(s.getMessage()).append(" | ");
            }
            System.out.println("MISMATCH " + causes);
        }
        Parameters.set("lpf.cr", "memory");
        Lpf.root().exec(3, ctx -> selects(ctx, "memory"));
        System.out.println("RANK ZERO'S SETTING HELD AT EVERY PROCESS");
        Parameters.clear("lpf.cr");
        Lpf.root().exec(3, ctx -> selects(ctx, "none"));
        System.out.println("RANK ZERO'S CLEARING HELD AT EVERY PROCESS");
    }

    /** Opens checkpoints; {@code want} (unless "(any)") is the module this process must have selected. */
    private static void selects(Context ctx, String want) {
        ctx.resizeMemoryRegister(Checkpoints.REGISTER_SLOTS);
        ctx.resizeMessageQueue(Checkpoints.queueEntries(ctx.nprocs()));
        ctx.sync();
        try (Checkpoints cr = Checkpoints.init(ctx, "modules")) {
            if (!want.equals("(any)") && !cr.module().equals(want)) {
                throw new IllegalStateException("pid " + ctx.pid() + " selected " + cr.module() + ", not " + want);
            }
        }
    }
}
