package org.lpf4j.engine.mpi;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;

import java.util.ArrayList;
import java.util.List;

/**
 * Run under mpirun by {@link FaultTest}: one rank of an exec over all ranks (the second argument,
 * default the last) fails in the way the first argument names, while the others sync in a loop.
 * <ul>
 *   <li>{@code kill}: it SIGKILLs its own JVM (prints {@code KILLING rank r pid <os pid> at <epoch ms>} first);</li>
 *   <li>{@code oom}: it runs out of heap inside its SPMD function (prints {@code EXHAUSTING rank r at <epoch ms>} first).</li>
 * </ul>
 * Rank 0 prints {@code FATAL <message>} if exec throws {@link FatalException}.
 */
public final class FaultMain {
    private FaultMain() {}

    static final class Faulty implements Spmd {
        private static final long serialVersionUID = 1L;
        private final String mode;
        private final int victim;

        Faulty(String mode, int victim) {
            this.mode = mode;
            this.victim = victim;
        }

        @Override
        public void run(Context ctx) throws Exception {
            int p = ctx.nprocs();
            for (int i = 0; i < 20; i++) ctx.sync();
            if (ctx.pid() == (victim < 0 ? p - 1 : victim)) {
                if (mode.equals("kill")) {
                    long pid = ProcessHandle.current().pid();
                    System.out.println("KILLING rank " + ctx.pid() + " pid " + pid + " at " + System.currentTimeMillis());
                    System.out.flush();
                    new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
                    Thread.sleep(60_000);
                } else if (mode.equals("oom")) {
                    System.out.println("EXHAUSTING rank " + ctx.pid() + " at " + System.currentTimeMillis());
                    System.out.flush();
                    List<long[]> hog = new ArrayList<>();
                    while (true) hog.add(new long[1 << 20]);
                }
            }
            while (true) ctx.sync();
        }
    }

    public static void main(String[] args) {
        var root = Lpf.root();
        try {
            root.exec(root.probe().p(), new Faulty(args[0], args.length > 1 ? Integer.parseInt(args[1]) : -1));
            System.out.println("NO FAILURE");
        } catch (FatalException e) {
            System.out.println("FATAL " + e.getMessage());
        }
    }
}
