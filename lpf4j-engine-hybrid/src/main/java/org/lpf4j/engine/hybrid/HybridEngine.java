package org.lpf4j.engine.hybrid;

import org.lpf4j.FatalException;
import org.lpf4j.Init;
import org.lpf4j.engine.mpi.MpiEngine;
import org.lpf4j.engine.mpi.layered.LaunchedHost;
import org.lpf4j.spi.ParameterRegistry;
import org.lpf4j.spi.Parameters;

import java.util.List;
import java.util.Objects;

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
 *
 * <p>A node that never reaches a sync (its JVM stopped with {@code kill -STOP}, hung, or one of
 * its threads in an endless loop) is caught between nodes by the MPI engine's sync deadline,
 * {@link MpiEngine#SYNC_TIMEOUT} ({@code lpf.engine.mpi.syncTimeout}, off by default): every
 * process of the nodes that arrived fails with a {@link FatalException} naming the node, and
 * saying when it is stopped by a signal. There is no deadline among a node's own threads.
 *
 * <p>A program that already uses MPI runs a section with {@link #init(long, int)} and
 * {@link org.lpf4j.Lpf#hook}: its communicator's ranks are the nodes.
 */
public final class HybridEngine {
    private HybridEngine() {}

    /** MPI_THREAD_FUNNELED: only the thread that initialised MPI calls it, the least a hooked section needs. */
    private static final int THREAD_FUNNELED = 1;

    /**
     * An {@link Init} over an existing MPI communicator whose ranks are the nodes (C LPF's
     * {@code lpf_hook} over a communicator, for the hybrid engine): every rank of {@code comm}
     * calls {@code Lpf.hook(HybridEngine.init(comm, t), spmd, args)} together, on the thread that
     * initialised MPI; the section has {@code p = size(comm) × t} processes, pids numbered node by
     * node (rank r's threads are pids {@code r·t … r·t + t − 1}). On each rank, the calling thread
     * runs the node's first process (it alone calls MPI) and {@code t − 1} new threads the others;
     * the first process gets the rank's {@code args}, the others the same symbols without input
     * and output. MPI must be initialised by the program with at least
     * {@code MPI_THREAD_FUNNELED} and is left initialised; the section runs over a duplicate of
     * {@code comm}, so the program's own messages on {@code comm} never mix with it. Ranks on one
     * host are refused unless {@code lpf.engine.hybrid.nodes=rank} (as for {@code Lpf.root()}).
     * Cost: one {@code MPI_Allreduce} that checks {@code t} agrees, then the section's set-up
     * (a few collectives over the nodes) and the section itself. Unlike {@code Lpf.root()}, this
     * cannot ask Open MPI to yield the core while it waits (MPI is already up): a program whose
     * nodes have fewer cores than threads should set {@code OMPI_MCA_mpi_yield_when_idle=1}
     * before {@code MPI_Init}.
     *
     * @param comm           the communicator handle as MPI's C API gives it (Open MPI: the pointer
     *                       value; MPICH: the {@code int} value), e.g. {@code MpiEngine.commWorld()}
     * @param threadsPerNode processes (threads) per node, the same on every rank; 0 for
     *                       {@code lpf.engine.hybrid.threads} (default: the host's cores divided by
     *                       the ranks on it)
     * @return the init object
     * @throws IllegalArgumentException if {@code threadsPerNode} is negative or above the node
     *                                  barrier's limit; at {@code hook}: if the ranks disagree on it
     * @throws IllegalStateException    at {@code hook}: if MPI is not initialised or gives less
     *                                  than {@code MPI_THREAD_FUNNELED}
     */
    public static Init init(long comm, int threadsPerNode) {
        if (threadsPerNode < 0 || threadsPerNode > org.lpf4j.engine.threads.kit.DisseminationBarrier.MAX_PARTIES) {
            throw new IllegalArgumentException("HybridEngine.init(comm=" + comm + ", threadsPerNode=" + threadsPerNode
                    + "): need 0 <= threadsPerNode <= " + org.lpf4j.engine.threads.kit.DisseminationBarrier.MAX_PARTIES);
        }
        return (spmd, args) -> {
            Objects.requireNonNull(spmd, "hook: spmd");
            Objects.requireNonNull(args, "hook: args");
            String call = "hook(HybridEngine.init(comm=" + comm + ", threadsPerNode=" + threadsPerNode + "))";
            int level = MpiEngine.threadLevel();
            if (level < 0) {
                throw new IllegalStateException(call + ": MPI is not initialised (call MPI_Init_thread first, or use"
                        + " Lpf.root() under an MPI launcher)");
            }
            if (level < THREAD_FUNNELED) {
                throw new IllegalStateException(call + ": MPI was initialised with thread level " + level
                        + "; the hybrid engine runs threads beside MPI and needs at least MPI_THREAD_FUNNELED (1)");
            }
            HybridSettings settings = HybridSettings.resolve(LaunchedHost.ranksOnThisHost(), threadsPerNode);
            int nodes = MpiEngine.size(comm), t = settings.threads();
            Layout layout = Layout.of(nodes * t, nodes, t);
            NodeSection section = new NodeSection(layout, spmd, settings, call);
            try {
                // Each rank made its layout from its own threadsPerNode: the section first checks they agree.
                MpiEngine.init(comm).hook(section, args);
            } catch (FatalException e) {
                if (section.refusal() != null) throw section.refusal();
                throw HybridRoot.unpack(call + " on the hybrid engine (" + layout + ")", e);
            }
        };
    }

    /** @return {@link #init(long, int)} with {@code lpf.engine.hybrid.threads} processes per node */
    public static Init init(long comm) { return init(comm, 0); }

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

    /**
     * {@code lpf.engine.hybrid.procs}: the processes of the machine (what {@code probe().p()} says and
     * what {@code exec} is capped at), at most nodes × threads; 0: nodes × threads. {@code lpf run
     * --engine hybrid -p P --nodes N} sets it to P: its N JVMs run ⌈P/N⌉ threads at most, and P = 5 on
     * 3 nodes is 2 + 2 + 1 processes, not 3 × 2.
     */
    public static final Parameters.Parameter<Integer> PROCS = ParameterRegistry.global().integer(PREFIX + "procs", 0, 0,
            Integer.MAX_VALUE, "processes of the machine, at most nodes x threads (lpf run -p sets it); 0: nodes x threads");

    /** {@code lpf.engine.hybrid.launchNodes}: the JVMs (nodes) {@code lpf run --engine hybrid} starts; 0: min(p, 2). */
    public static final Parameters.Parameter<Integer> LAUNCH_NODES = ParameterRegistry.global().integer(PREFIX + "launchNodes",
            0, 0, 1 << 20, "nodes (JVMs) lpf run --engine hybrid starts (lpf run --nodes N); 0: min(p, 2)");

    /**
     * {@code lpf.engine.hybrid.bind}: whether node JVMs that share a host whose cores their threads
     * outnumber take a share of its CPUs each ({@code NodeCpus}).
     */
    public static final Parameters.Parameter<String> BIND = ParameterRegistry.global().choice(PREFIX + "bind", "auto",
            List.of("auto", "none"), "auto: node JVMs sharing a host whose cores their threads outnumber keep to a share"
                    + " of its CPUs each (unless the launcher bound them); none: never bind");

    /**
     * {@code lpf.engine.hybrid.over}: the multi-JVM engine whose sections connect the nodes:
     * {@code mpi} (libmpi, an MPI launcher) or {@code net} (TCP between the node JVMs, no native
     * library; {@code lpf run --engine hybrid} then starts the node JVMs with the net engine's
     * launcher). Any engine built on {@code org.lpf4j.superstep} serves; the nodes' exchange is its.
     */
    public static final Parameters.Parameter<String> OVER = ParameterRegistry.global().choice(PREFIX + "over", "mpi",
            List.of("mpi", "net"), "the engine between the nodes: mpi (libmpi and an MPI launcher) or net (TCP, no native library)");

    /** @return the engine's parameters, for the provider's {@code open} */
    static List<Parameters.Parameter<?>> parameters() {
        return List.of(THREADS, NODES, SPIN, YIELD, PROBE_MILLIS, PROCS, LAUNCH_NODES, BIND, OVER);
    }
}
