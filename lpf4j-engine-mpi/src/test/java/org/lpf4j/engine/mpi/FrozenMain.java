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
 *   <li>{@code between}: a first section of all ranks ends well, and the rank stops its JVM 300 ms
 *       later, while it waits for its next command (prints {@code STOPPING ...} as above); rank 0
 *       starts a second section of the number of ranks the third argument gives, 1.5 s after the
 *       first (prints {@code SECOND at <epoch ms>} first).</li>
 *   <li>{@code probe}: a section of the number of ranks the third argument gives, in which the
 *       rank stops its JVM after a sync (prints {@code STOPPING ...}) while the others call
 *       {@code probe()}, which makes a section of them all.</li>
 *   <li>{@code leave}: every rank puts 1 MiB to the next and syncs, 20 times; in the fifth sync
 *       the rank's large send fails as a buffer the JVM refuses ({@code OutOfMemoryError}), after
 *       the sync's round (prints {@code LEAVING rank r at <epoch ms>} first).</li>
 *   <li>{@code unpack}: a section of all ranks whose function takes the milliseconds the second
 *       argument gives to deserialise on each rank it is shipped to; it syncs once.</li>
 *   <li>{@code alone}: rank 0 leaves a section of itself alone midway ({@code Transport.leave}),
 *       without and with a deadline, and prints {@code LEFT ALONE}.</li>
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
                        stopThisJvm(s);
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

    /** Prints {@code STOPPING rank r pid <os pid> at <epoch ms>}, then stops this JVM with {@code kill -STOP}. */
    static void stopThisJvm(int rank) throws java.io.IOException, InterruptedException {
        long pid = ProcessHandle.current().pid();
        System.out.println("STOPPING rank " + rank + " pid " + pid + " at " + System.currentTimeMillis());
        System.out.flush();
        new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor();
    }

    /** A section that ends well; its process {@code victim} stops its own JVM 300 ms after it. */
    static final class StopSoon implements Spmd {
        private static final long serialVersionUID = 1L;
        private final int victim;

        StopSoon(int victim) { this.victim = victim; }

        @Override
        public void run(Context ctx) throws Exception {
            ctx.sync();
            if (ctx.pid() != victim) return;
            Thread stopper = new Thread(() -> {
                try {
                    Thread.sleep(300);
                    stopThisJvm(victim);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            stopper.setDaemon(true);
            stopper.start();
        }
    }

    /** The others call {@code probe()} while process {@code victim} stops its JVM. */
    static final class ProbeWhileStopped implements Spmd {
        private static final long serialVersionUID = 1L;
        private final int victim;

        ProbeWhileStopped(int victim) { this.victim = victim; }

        @Override
        public void run(Context ctx) throws Exception {
            ctx.sync();
            if (ctx.pid() == victim) stopThisJvm(victim);
            ctx.probe();
        }
    }

    /** 1 MiB puts around the ring; process {@code victim}'s fifth sync fails midway. */
    static final class LeaveMidway implements Spmd {
        private static final long serialVersionUID = 1L;
        private final int victim;

        LeaveMidway(int victim) { this.victim = victim; }

        @Override
        public void run(Context ctx) throws Exception {
            int p = ctx.nprocs(), s = ctx.pid();
            long size = 1 << 20;
            MemorySegment src = Arena.ofShared().allocate(size, 8), dst = Arena.ofShared().allocate(size, 8);
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot from = ctx.registerLocal(src), to = ctx.registerGlobal(dst);
            ctx.sync();
            for (int i = 0; i < 20; i++) {
                if (i == 5 && s == victim) {
                    System.out.println("LEAVING rank " + s + " at " + System.currentTimeMillis());
                    System.out.flush();
                    MpiTransport.largeSendFailsForTest = Thread.currentThread();
                }
                ctx.put(from, 0, (s + 1) % p, to, 0, size);
                ctx.sync();
            }
        }
    }

    /** A function that takes {@code millis} to deserialise (as a large one would), then syncs once. */
    static final class SlowToUnpack implements Spmd {
        private static final long serialVersionUID = 1L;
        private final long millis;

        SlowToUnpack(long millis) { this.millis = millis; }

        private void readObject(java.io.ObjectInputStream in) throws java.io.IOException, ClassNotFoundException, InterruptedException {
            in.defaultReadObject();
            Thread.sleep(millis);
        }

        @Override
        public void run(Context ctx) { ctx.sync(); }
    }

    /** @param args the mode ({@code stop}, {@code slow} or {@code between}), the rank that stops or computes, for {@code between} the second section's p */
    public static void main(String[] args) throws InterruptedException {
        var root = Lpf.root();
        try {
            if (args[0].equals("between")) {
                int victim = Integer.parseInt(args[1]);
                root.exec(root.probe().p(), new StopSoon(victim));
                Thread.sleep(1_500);
                System.out.println("SECOND at " + System.currentTimeMillis());
                System.out.flush();
                root.exec(Integer.parseInt(args[2]), new StopSoon(-1));
            } else if (args[0].equals("alone")) {
                Mpi mpi = MpiRuntime.get().mpi;
                for (int millis : new int[]{0, 60_000}) {
                    long comm = mpi.dup(mpi.commSelf());
                    MpiTransport alone = new MpiTransport(mpi, comm, millis, false, null);
                    alone.leave("pid 0 left superstep 0 midway: a test");
                    alone.close();
                    mpi.free(comm);
                }
                System.out.println("LEFT ALONE");
            } else if (args[0].equals("unpack")) {
                root.exec(root.probe().p(), new SlowToUnpack(Long.parseLong(args[1])));
            } else if (args[0].equals("leave")) {
                root.exec(root.probe().p(), new LeaveMidway(Integer.parseInt(args[1])));
            } else if (args[0].equals("probe")) {
                root.exec(Integer.parseInt(args[2]), new ProbeWhileStopped(Integer.parseInt(args[1])));
            } else {
                root.exec(root.probe().p(), new Looping(args[0], Integer.parseInt(args[1])));
            }
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
