package org.lpf4j.engine.threads;

import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;

/**
 * The threads engine's parameters ({@link ThreadsEngine}); see {@link Parameters} for how to set them.
 * Each is resolved once when a context is made, never on the hot path.
 *
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
 */
public final class ThreadsParameters {
    private ThreadsParameters() {}

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

}
