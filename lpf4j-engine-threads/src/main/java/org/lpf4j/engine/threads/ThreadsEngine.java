package org.lpf4j.engine.threads;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Init;
import org.lpf4j.Spmd;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;

/**
 * The shared-memory engine: every LPF process is a platform thread of this JVM (inclusive
 * memory). Its public surface is its parameters, its root context, and {@link #group(int)} for
 * {@link org.lpf4j.Lpf#hook hook} from a group of existing threads.
 *
 * <p>Parameters (see {@link Parameters} for how to set them):
 * <ul>
 * <li>{@code lpf.engine.threads.procs}: the machine size, i.e. what {@code probe()} on the root
 *     reports as {@code p} and {@code freeP}, and what {@code exec(Lpf.MAX_P, ...)} from the root
 *     gets (default: the number of cores).</li>
 * <li>{@code lpf.engine.threads.maxProcs}: the most processes an explicit {@code exec(p, ...)}
 *     from the root gets (default 512, at least the machine size). Processes are threads, so a
 *     root {@code exec(p)} with {@code p} above the machine size runs {@code p} processes
 *     oversubscribed (the barrier and the waiting policy adapt). A nested {@code exec} gets at
 *     most the processors assigned to its calling process. Whenever an {@code exec} runs fewer
 *     processes than asked (other than {@code Lpf.MAX_P}), the engine logs one warning per JVM
 *     through {@link System.Logger} {@code org.lpf4j.engine.threads}, naming the parameter that
 *     raises the limit.</li>
 * <li>{@code lpf.engine.threads.hookTimeout} (ms, default 60000; 0: none): a {@code hook} member
 *     whose peers have not all arrived after this long fails with a {@code FatalException}
 *     naming the missing pids.</li>
 * <li>{@code lpf.engine.threads.syncTimeout} (ms, default 0: none): processes that wait this
 *     long in a sync for others fail with a {@code FatalException} naming the pids that did not
 *     reach it. Off by default: a superstep may legitimately compute for hours, and every
 *     failure lpf4j can see (an exception, an early return, unequal syncs) is already reported
 *     at once; the timeout is for a process stuck outside lpf4j (an endless loop, a deadlock
 *     on a lock of the program).</li>
 * <li>{@code lpf.engine.threads.spin}, {@code lpf.engine.threads.yield} (nanoseconds): how
 *     long a process waiting in a sync spins, then yields, before it parks (-1: chosen from processes vs cores).</li>
 * <li>{@code lpf.engine.threads.probeMillis}: time budget of the first {@code probe} per p.</li>
 * <li>{@code lpf.engine.threads.barrier}: auto (dissemination while every process has a core,
 *     central counter otherwise), central or dissemination.</li>
 * <li>{@code lpf.engine.threads.spread} (default true): a process whose wait in a sync did not
 *     end while spinning notes its CPU and, at most once per millisecond, moves itself to another
 *     CPU if its CPU holds more than ⌈p / cores⌉ processes of its section, giving its thread its
 *     full affinity back at once (nothing stays pinned; see
 *     {@link org.lpf4j.engine.threads.group.CpuSpreading} for the measurements behind it). Needs
 *     Linux and native access for this module ({@code --enable-native-access}, which
 *     {@code bin/lpf} passes); without them it is off, silently.</li>
 * </ul>
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

    private static final String PREFIX = "lpf.engine.threads.";

    /** The machine size. */
    public static final Parameters.Parameter<Integer> PROCS = procs(ParameterRegistry.global());
    /** Nanoseconds a waiting process spins before it yields; -1 chooses by processes vs cores. */
    public static final Parameters.Parameter<Integer> SPIN = spin(ParameterRegistry.global());
    /** Nanoseconds a waiting process yields before it parks; -1 chooses by processes vs cores. */
    public static final Parameters.Parameter<Integer> YIELD = yields(ParameterRegistry.global());
    /** Time budget of one measurement of g and l. */
    public static final Parameters.Parameter<Integer> PROBE_MILLIS = probeMillis(ParameterRegistry.global());
    /** The barrier algorithm: auto, central or dissemination. */
    public static final Parameters.Parameter<String> BARRIER = barrier(ParameterRegistry.global());
    /** The most processes an explicit {@code exec(p)} from the root gets. */
    public static final Parameters.Parameter<Integer> MAX_PROCS = maxProcs(ParameterRegistry.global());
    /** Milliseconds hook members wait for the missing ones (0: forever). */
    public static final Parameters.Parameter<Integer> HOOK_TIMEOUT = hookTimeout(ParameterRegistry.global());
    /** Milliseconds processes wait in a sync for the missing ones (0: forever). */
    public static final Parameters.Parameter<Integer> SYNC_TIMEOUT = syncTimeout(ParameterRegistry.global());
    /** {@code lpf.engine.threads.spread}. */
    public static final Parameters.Parameter<Boolean> SPREAD = spread(ParameterRegistry.global());

    /**
     * Declares the engine's parameters in a registry: {@link #PROCS} and the others are these
     * declarations in the global one; {@link ThreadsEngineProvider#open} declares them again in
     * an isolated registry (tests, tools).
     *
     * @param r a registry
     * @return procs, spin, yield, probeMillis, barrier, maxProcs, hookTimeout, syncTimeout, spread
     */
    static java.util.List<Parameters.Parameter<?>> declare(ParameterRegistry r) {
        return java.util.List.of(procs(r), spin(r), yields(r), probeMillis(r), barrier(r), maxProcs(r), hookTimeout(r),
                syncTimeout(r), spread(r));
    }

    private static Parameters.Parameter<Integer> maxProcs(ParameterRegistry r) {
        return r.integer(PREFIX + "maxProcs", 512, 1, org.lpf4j.engine.threads.group.Barrier.MAX_PARTIES,
                "most processes an explicit exec(p) from the root gets (oversubscribed above procs)");
    }

    private static Parameters.Parameter<Integer> hookTimeout(ParameterRegistry r) {
        return r.integer(PREFIX + "hookTimeout", 60_000, 0, Integer.MAX_VALUE,
                "ms hook members wait for the missing ones before failing (0: forever)");
    }

    private static Parameters.Parameter<Integer> syncTimeout(ParameterRegistry r) {
        return r.integer(PREFIX + "syncTimeout", 0, 0, Integer.MAX_VALUE,
                "ms processes wait in a sync for the missing ones before failing (0: forever)");
    }

    private static Parameters.Parameter<Boolean> spread(ParameterRegistry r) {
        return r.bool(PREFIX + "spread", true,
                "processes move apart when a CPU holds more than ceil(p / cores) of a section (Linux, native access)");
    }

    private static Parameters.Parameter<String> barrier(ParameterRegistry r) {
        return r.choice(PREFIX + "barrier", "auto", java.util.List.of("auto", "central", "dissemination"),
                "barrier algorithm: dissemination (one cache-line transfer per round) when every process has a core,"
                + " central counter otherwise (auto), or forced");
    }

    private static Parameters.Parameter<Integer> procs(ParameterRegistry r) {
        return r.integer(PREFIX + "procs", Runtime.getRuntime().availableProcessors(), 1, org.lpf4j.engine.threads.group.Barrier.MAX_PARTIES,
                "machine size: processes an exec from the root may start (default: the core count)");
    }

    private static Parameters.Parameter<Integer> spin(ParameterRegistry r) {
        return r.integer(PREFIX + "spin", -1, -1, Integer.MAX_VALUE,
                "nanoseconds a process waiting in a sync spins before yielding (-1: automatic)");
    }

    private static Parameters.Parameter<Integer> yields(ParameterRegistry r) {
        return r.integer(PREFIX + "yield", -1, -1, Integer.MAX_VALUE, "nanoseconds a process waiting in a sync yields before parking (-1: automatic)");
    }

    private static Parameters.Parameter<Integer> probeMillis(ParameterRegistry r) {
        return r.integer(PREFIX + "probeMillis", 300, 10, 600_000, "time budget in ms of the first probe per p");
    }

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
