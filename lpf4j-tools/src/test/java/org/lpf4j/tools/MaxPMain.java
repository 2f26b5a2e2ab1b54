package org.lpf4j.tools;

import org.lpf4j.Lpf;

/**
 * A program whose {@code main} asks for {@link Lpf#MAX_P}: process 0 prints
 * {@code "MAX_P section of N processes"}, so a test sees how many {@code lpf run -p} gave it.
 */
public final class MaxPMain {
    private MaxPMain() {}

    /** Runs one section of {@code Lpf.MAX_P} processes. */
    public static void main(String[] args) {
        Lpf.root().exec(Lpf.MAX_P, ctx -> {
            ctx.sync();
            if (ctx.pid() == 0) System.out.println("MAX_P section of " + ctx.nprocs() + " processes");
        });
    }
}
