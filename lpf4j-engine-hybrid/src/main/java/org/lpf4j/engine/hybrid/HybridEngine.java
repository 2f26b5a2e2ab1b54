package org.lpf4j.engine.hybrid;

import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;

import java.util.List;

/**
 * The hybrid engine: one JVM per node (one MPI rank each), {@code t} LPF processes (threads) in
 * each, {@code p = nodes × t} processes in all, pids numbered node by node.
 *
 * <p>Inside a node a put or get is a memory copy done by the destination's (for a get: the
 * requester's) thread, through the threads engine's request queues and barrier
 * ({@code org.lpf4j.engine.threads.kit}). Between nodes one thread per node, the node's
 * <em>leader</em> (its local process 0), packs the node's requests per destination node, so a
 * superstep costs one MPI exchange per node pair, not per thread pair. Every write into a
 * process's memory is done by that process's thread, in a fixed order (node-local puts, then
 * remote puts by source node, then its gets), so write conflicts end as a serialisation.
 *
 * <p>Under an MPI launcher, {@code Lpf.root()} with this engine initialises MPI (through the MPI
 * engine); on rank 0 it returns the root context, on every other rank it does not return (the
 * rank waits for sections and exits when rank 0's JVM ends). Call {@code Lpf.root()} early in
 * {@code main}.
 */
public final class HybridEngine {
    private HybridEngine() {}

    private static final String PREFIX = "lpf.engine.hybrid.";

    /** {@code lpf.engine.hybrid.threads}: processes (threads) per node; 0 means the node's cores. */
    public static final Parameters.Parameter<Integer> THREADS = ParameterRegistry.global().integer(PREFIX + "threads", 0, 0,
            org.lpf4j.engine.threads.kit.DisseminationBarrier.MAX_PARTIES,
            "LPF processes (threads) per node; 0: the cores of rank 0's node divided by the ranks sharing it");

    /**
     * {@code lpf.engine.hybrid.nodes}: {@code host} (default) groups MPI ranks by host name and
     * refuses two ranks on one host (one JVM per node is the point of this engine: use
     * {@code mpirun --map-by ppr:1:node}); {@code rank} treats every rank as a node of its own, for
     * tests and demonstrations where N JVMs on one machine stand for N nodes.
     */
    public static final Parameters.Parameter<String> NODES = ParameterRegistry.global().choice(PREFIX + "nodes", "host",
            List.of("host", "rank"), "what a node is: host (ranks grouped by host name; two ranks on one host is an error)"
                    + " or rank (every MPI rank is a node: N JVMs on one machine stand for N nodes)");

    /** {@code lpf.engine.hybrid.spin}: as {@code lpf.engine.threads.spin}, for the node-local barrier. */
    public static final Parameters.Parameter<Integer> SPIN = ParameterRegistry.global().integer(PREFIX + "spin", -1, -1,
            Integer.MAX_VALUE, "nanoseconds a process waiting in the node-local barrier spins before yielding (-1: automatic)");

    /** {@code lpf.engine.hybrid.yield}: as {@code lpf.engine.threads.yield}. */
    public static final Parameters.Parameter<Integer> YIELD = ParameterRegistry.global().integer(PREFIX + "yield", -1, -1,
            Integer.MAX_VALUE, "nanoseconds a process waiting in the node-local barrier yields before parking (-1: automatic)");

    /** {@code lpf.engine.hybrid.probeMillis}: the time budget of one probe measurement. */
    public static final Parameters.Parameter<Integer> PROBE_MILLIS = ParameterRegistry.global().integer(PREFIX + "probeMillis",
            400, 10, 600_000, "time budget of one g/l measurement by probe (milliseconds)");

    /** {@code lpf.engine.hybrid.launchNodes}: the JVMs (nodes) {@code lpf run --engine hybrid} starts; 0: min(p, 2). */
    public static final Parameters.Parameter<Integer> LAUNCH_NODES = ParameterRegistry.global().integer(PREFIX + "launchNodes",
            0, 0, 1 << 20, "nodes (JVMs) lpf run --engine hybrid starts (lpf run --nodes N); 0: min(p, 2)");

    /** @return the engine's parameters, for the provider's {@code open} */
    static List<Parameters.Parameter<?>> parameters() { return List.of(THREADS, NODES, SPIN, YIELD, PROBE_MILLIS, LAUNCH_NODES); }
}
