package org.lpf4j.engine.net;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serial;

/**
 * The program of {@link RankThreadErrorTest}: pid 0 runs a section of 8 whose function rank 1
 * cannot read: its deserialization throws an {@link Error} on rank 1's thread, outside any
 * section, as an engine's own error would (an {@code OutOfMemoryError}, say).
 */
public final class RankThreadErrorProgram {
    private RankThreadErrorProgram() {}

    public static void main(String[] args) {
        Lpf.root().exec(8, new PoisonedOnRankOne());
        System.out.println("SECTION ENDED");
    }

    /** Syncs once; unreadable on the thread of rank 1. */
    static final class PoisonedOnRankOne implements Spmd {
        @Serial
        private static final long serialVersionUID = 1L;

        @Serial
        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            if (Thread.currentThread().getName().equals("lpf-net-rank-1")) throw new AssertionError("a test's error on rank 1's thread");
        }

        @Override
        public void run(Context ctx) { ctx.sync(); }
    }
}
