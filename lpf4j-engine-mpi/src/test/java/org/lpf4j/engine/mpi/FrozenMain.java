package org.lpf4j.engine.mpi;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Run under mpirun by {@link FrozenTest}: every rank puts 8 bytes to the next and syncs in a loop
 * over all ranks; after 20 supersteps one rank (the second argument) stops in the way the first
 * argument names:
 * <ul>
 *   <li>{@code stop}: it stops its own JVM with {@code kill -STOP} (prints
 *       {@code STOPPING rank r pid <os pid> at <epoch ms>} first); the others sync on forever;</li>
 *   <li>{@code slow}: it computes (sleeps) 2 s before its next sync (prints
 *       {@code SLOW rank r at <epoch ms>} first); every rank ends after 40 supersteps.</li>
 * </ul>
 * Rank 0 prints {@code NO FAILURE} and returns, or prints {@code FATAL <message>} if exec throws
 * {@link FatalException} and exits with status 3.
 */
public final class FrozenMain {
    private FrozenMain() {}

    static final class Looping implements Spmd {
        private static final long serialVersionUID = 1L;
        private final String mode;
        private final int victim;

        Looping(String mode, int victim) {
            this.mode = mode;
            this.victim = victim;
        }

        @Override
        public void run(Context ctx) throws Exception {
            int p = ctx.nprocs(), s = ctx.pid();
            MemorySegment mem = Arena.ofShared().allocate(8L * (p + 1), 8);
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot src = ctx.registerLocal(mem.asSlice(0, 8)), dst = ctx.registerGlobal(mem.asSlice(8));
            ctx.sync();
            for (long i = 0; mode.equals("stop") || i < 40; i++) {
                if (i == 20 && s == victim) {
                    if (mode.equals("stop")) {
                        long pid = ProcessHandle.current().pid();
                        System.out.println("STOPPING rank " + s + " pid " + pid + " at " + System.currentTimeMillis());
                        System.out.flush();
                        new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor();
                    } else {
                        System.out.println("SLOW rank " + s + " at " + System.currentTimeMillis());
                        System.out.flush();
                        Thread.sleep(2_000);
                    }
                }
                mem.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, i);
                ctx.put(src, 0, (s + 1) % p, dst, 8L * s, 8);
                ctx.sync();
            }
        }
    }

    /** @param args the mode ({@code stop} or {@code slow}) and the rank that stops or computes */
    public static void main(String[] args) {
        var root = Lpf.root();
        try {
            root.exec(root.probe().p(), new Looping(args[0], Integer.parseInt(args[1])));
            System.out.println("NO FAILURE");
        } catch (FatalException e) {
            System.out.println("FATAL " + e.getMessage());
            System.out.flush();
            // As a failed program does (lpf run exits with its failure status): the job's status must not
            // depend on whether the launcher saw the other ranks' status 1 before it cleaned them up.
            System.exit(3);
        }
    }
}
