package org.lpf4j.engine.hybrid;

import org.lpf4j.FatalException;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;

import java.util.List;

/**
 * The hybrid engine's parameters, and what the engine is: one JVM per node, {@code t} LPF processes (threads) in each, {@code p = nodes
 * × t} processes in all, pids numbered node by node. Between the nodes runs any engine with one
 * process per JVM ({@link org.lpf4j.spi.kit.NodeLevelEngine}), chosen by name with
 * {@link #OVER}: the MPI engine (libmpi and an MPI launcher; the default) or the net engine (TCP,
 * no native library). This class holds the engine's parameters.
 *
 * <p>Inside a node a put or get is a memory copy done by the destination's (for a get: the
 * requester's) thread, through the threads engine's request queues and barrier
 * ({@code org.lpf4j.engine.threads.group}). Between nodes one thread per node, the node's
 * <em>leader</em> (its local process 0), packs the node's requests per destination node, so a
 * superstep costs one exchange of the engine between the nodes per node pair, not per thread
 * pair. Every write into a process's memory is done by that process's thread, in a fixed order
 * (node-local puts, then remote puts by source node, then its gets), so write conflicts end as a
 * serialisation.
 *
 * <p>Launched as a job of that engine, {@code Lpf.root()} with this engine starts the engine
 * between the nodes; on node 0 it returns the root context, on every other node it does not
 * return (the node waits for sections and exits when node 0's JVM ends). Call {@code Lpf.root()}
 * early in {@code main}.
 *
 * <p>A node that never reaches a sync (its JVM stopped with {@code kill -STOP}, hung, or one of
 * its threads in an endless loop) is caught between nodes by the sync deadline of the engine
 * between them ({@code lpf.engine.mpi.syncTimeout}, {@code lpf.engine.net.syncTimeout}; off by
 * default for MPI): every process of the nodes that arrived fails with a {@link FatalException}
 * naming the node, and saying when it is stopped by a signal. There is no deadline among a node's
 * own threads.
 *
 * <p>A program that already uses MPI runs a section with the MPI engine's
 * {@code MpiHybrid.init(comm, t)} and {@link org.lpf4j.Lpf#hook}: its communicator's ranks are the
 * nodes (the MPI engine finds this engine by name, as a {@link org.lpf4j.spi.kit.LayeredEngine}).
 */
public final class HybridParameters {
    private HybridParameters() {}

    private static final String PREFIX = "lpf.engine.hybrid.";

    /** {@code lpf.engine.hybrid.threads}: processes (threads) per node; 0 means the node's cores. */
    public static final Parameters.Parameter<Integer> THREADS = ParameterRegistry.global().integer(PREFIX + "threads", 0, 0,
            org.lpf4j.engine.threads.group.DisseminationBarrier.MAX_PARTIES,
            "LPF processes (threads) per node; 0: the cores of rank 0's node divided by the ranks sharing it");

    /**
     * {@code lpf.engine.hybrid.nodes}: {@code host} (default) groups the node JVMs (MPI ranks, net
     * processes) by host name and refuses two on one host (one JVM per node is the point of this engine: use
     * {@code mpirun --map-by ppr:1:node}); {@code rank} treats every rank as a node of its own, for
     * tests and demonstrations where N JVMs on one machine stand for N nodes.
     */
    public static final Parameters.Parameter<String> NODES = ParameterRegistry.global().choice(PREFIX + "nodes", "host",
            List.of("host", "rank"), "what a node is: host (node JVMs grouped by host name; two on one host is an error)"
                    + " or rank (every JVM is a node: N JVMs on one machine stand for N nodes)");

    /** {@code lpf.engine.hybrid.spin}: as {@code lpf.engine.threads.spin}, for the node-local barrier. */
    public static final Parameters.Parameter<Integer> SPIN = ParameterRegistry.global().integer(PREFIX + "spin", -1, -1,
            Integer.MAX_VALUE, "nanoseconds a process waiting in the node-local barrier spins before yielding (-1: automatic)");

    /** {@code lpf.engine.hybrid.yield}: as {@code lpf.engine.threads.yield}. */
    public static final Parameters.Parameter<Integer> YIELD = ParameterRegistry.global().integer(PREFIX + "yield", -1, -1,
            Integer.MAX_VALUE, "nanoseconds a process waiting in the node-local barrier yields before parking (-1: automatic)");

    /** {@code lpf.engine.hybrid.probeMillis}: the time budget of one probe measurement. */
    public static final Parameters.Parameter<Integer> PROBE_MILLIS = ParameterRegistry.global().integer(PREFIX + "probeMillis",
            400, 10, 600_000, "time budget of one g/l measurement by probe (milliseconds)");

    /**
     * {@code lpf.engine.hybrid.procs}: the processes of the machine (what {@code probe().p()} says and
     * what {@code exec} is capped at), at most nodes × threads; 0: nodes × threads. {@code lpf run
     * --engine hybrid -p P --nodes N} sets it to P: its N JVMs run ⌈P/N⌉ threads at most, and P = 5 on
     * 3 nodes is 2 + 2 + 1 processes, not 3 × 2.
     */
    public static final Parameters.Parameter<Integer> PROCS = ParameterRegistry.global().integer(PREFIX + "procs", 0, 0,
            Integer.MAX_VALUE, "processes of the machine, at most nodes x threads (lpf run -p sets it); 0: nodes x threads");

    /** {@code lpf.engine.hybrid.launchNodes}: the JVMs (nodes) {@code lpf run --engine hybrid} starts; 0: min(p, 2). */
    public static final Parameters.Parameter<Integer> LAUNCH_NODES = org.lpf4j.spi.kit.LaunchNodes.declare(HybridEngineProvider.NAME,
            "the node JVMs lpf run --engine hybrid starts, one per node where the launcher can; 0: min(p, 2)");

    /**
     * {@code lpf.engine.hybrid.bind}: whether node JVMs that share a host whose cores their threads
     * outnumber take a share of its CPUs each ({@code NodeCpus}).
     */
    public static final Parameters.Parameter<String> BIND = ParameterRegistry.global().choice(PREFIX + "bind", "auto",
            List.of("auto", "none"), "auto: node JVMs sharing a host whose cores their threads outnumber keep to a share"
                    + " of its CPUs each (unless the launcher bound them); none: never bind");

    /**
     * {@code lpf.engine.hybrid.over}: the multi-JVM engine whose sections connect the nodes, found
     * by this name in the component registry: {@code mpi} (libmpi, an MPI launcher) or {@code net}
     * (TCP between the node JVMs, no native library; {@code lpf run --engine hybrid} then starts
     * the node JVMs with the net engine's launcher). Any engine that provides
     * {@link org.lpf4j.spi.kit.NodeLevelEngine} serves; the nodes' exchange is its.
     */
    public static final Parameters.Parameter<String> OVER = ParameterRegistry.global().choice(PREFIX + "over", "mpi",
            List.of("mpi", "net"), "the engine between the nodes: mpi (libmpi and an MPI launcher) or net (TCP, no native library)");

    /** @return the engine's parameters, for the provider's {@code open} */
    static List<Parameters.Parameter<?>> parameters() {
        return List.of(THREADS, NODES, SPIN, YIELD, PROBE_MILLIS, PROCS, LAUNCH_NODES, BIND, OVER);
    }
}
