package org.lpf4j.engine.threads;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Init;
import org.lpf4j.Spmd;

/**
 * The shared-memory engine: every LPF process is a platform thread of this JVM (inclusive
 * memory). Its public surface is its parameters ({@link ThreadsParameters}), its root context, and {@link #group(int)} for
 * {@link org.lpf4j.Lpf#hook hook} from a group of existing threads.
 *
 * <p>Sync: a superstep in which no process queued anything costs one barrier; one whose
 * requests are all puts of at most 256 bytes costs one barrier (their payloads were copied into
 * the queue when the put was made); any other costs two barriers, with the copies between them.
 *
 * <p>Costs: a section of p processes starts p − 1 platform threads and keeps, per process, two
 * request queues with one 64-byte mailbox per destination, so 128·p² bytes in all (p = 64:
 * 512 KiB; p = 1024: 128 MiB) besides the queues' capacity. At most 2^20 − 1 processes.
 */
public final class ThreadsEngine {
    private ThreadsEngine() {}

    /** @return a new root context: one process whose {@code exec} may use the whole machine */
    public static Context root() {
        return root(ThreadsSettings.resolve());
    }

    /** @return a new root context with these settings */
    static Context root(ThreadsSettings settings) {
        Team team = new Team(1, settings);
        ThreadsContext ctx = new ThreadsContext(team, 0, settings.procs(), Args.NONE, true);
        team.members[0] = ctx;
        return ctx;
    }

    /**
     * A group of {@code nprocs} existing threads that start LPF sections together with
     * {@link org.lpf4j.Lpf#hook}: thread {@code k} passes {@code group.member(k)}. A group can run
     * any number of sections one after another.
     *
     * @param nprocs the number of threads (processes), ≥ 1
     * @return the group
     */
    public static Group group(int nprocs) {
        return group(nprocs, ThreadsSettings.resolve());
    }

    /** {@link #group(int)} with these settings. */
    static Group group(int nprocs, ThreadsSettings settings) {
        if (nprocs < 1) throw new IllegalArgumentException("ThreadsEngine.group(" + nprocs + "): need at least 1 thread");
        return new Group(nprocs, settings);
    }

    /** Threads that hook LPF sections together; see {@link #group(int)}. */
    public static final class Group {
        private final int nprocs;
        private final Rounds rounds;
        private final long[] memberRounds;

        private Group(int nprocs, ThreadsSettings settings) {
            this.nprocs = nprocs;
            this.rounds = new Rounds(nprocs, null, settings);
            this.memberRounds = new long[nprocs];
        }

        /** @return the number of processes of this group */
        public int nprocs() { return nprocs; }

        /**
         * @param pid this thread's process id in the group
         * @return the {@link Init} thread {@code pid} passes to {@link org.lpf4j.Lpf#hook}
         */
        public Init member(int pid) {
            if (pid < 0 || pid >= nprocs) {
                throw new IndexOutOfBoundsException("Group.member(" + pid + "): pid not in [0, " + nprocs + ")");
            }
            return (Spmd spmd, Args args) -> {
                java.util.Objects.requireNonNull(spmd, "hook: spmd");
                java.util.Objects.requireNonNull(args, "hook: args");
                long round;
                synchronized (memberRounds) { round = ++memberRounds[pid]; }
                Team team = rounds.teamFor(round);
                // Arrived after the others timed out waiting for it: the section is over.
                if (team.failed()) throw team.outcome("hook(pid " + pid + ")");
                var failure = Sections.runMember(team, pid, 1, spmd, args, "hook(pid " + pid + ")", null);
                if (failure != null) throw failure;
            };
        }
    }
}
