package org.lpf4j.engine.mpi;

import org.lpf4j.Lpf;

/**
 * Run under an MPI launcher by {@link ManyRootsTest}: rank 0 asks for {@code Lpf.root()} many
 * times (as a program that calls {@code Lpf.root().exec(...)} per step does), runs a section over
 * every rank each time, and prints {@code ROOTS OK <n>}.
 */
public final class ManyRootsMain {
    private ManyRootsMain() {}

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        int p = Lpf.root().probe().p();
        for (int i = 0; i < n; i++) {
            try {
                Lpf.root().exec(p, ctx -> ctx.sync());
            } catch (RuntimeException e) {
                System.out.println("ROOTS FAILED at " + i + ": " + e);
                System.exit(2);
            }
        }
        System.out.println("ROOTS OK " + n);
    }
}
