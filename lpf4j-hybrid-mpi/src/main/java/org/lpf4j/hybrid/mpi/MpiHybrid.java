package org.lpf4j.hybrid.mpi;

import org.lpf4j.Init;
import org.lpf4j.engine.mpi.MpiEngine;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.kit.LayeredEngine;

/**
 * The hybrid engine entered from a program that already uses MPI: its communicator's ranks are the
 * nodes, each runs {@code t} LPF processes (threads). This module is the one place that knows both
 * engines: it takes the MPI side (the communicator, MPI's thread level, {@link MpiEngine#init(long)}
 * for the nodes) and finds the hybrid engine by name through the component registry, as a
 * {@link LayeredEngine}; neither engine's module depends on the other's. Needs the hybrid engine
 * installed (this module brings it at run time).
 */
public final class MpiHybrid {
    private MpiHybrid() {}

    /** MPI_THREAD_FUNNELED: only the thread that initialised MPI calls it, the least a hooked section needs. */
    private static final int THREAD_FUNNELED = 1;

    /**
     * An {@link Init} over an existing MPI communicator whose ranks are the nodes (C LPF's
     * {@code lpf_hook} over a communicator, for the hybrid engine): every rank of {@code comm}
     * calls {@code Lpf.hook(MpiHybrid.init(comm, t), spmd, args)} together, on the thread that
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
     *                       value; MPICH: the {@code int} value), e.g. {@link MpiEngine#commWorld()}
     * @param threadsPerNode processes (threads) per node, the same on every rank; 0 for
     *                       {@code lpf.engine.hybrid.threads} (default: the host's cores divided by
     *                       the ranks on it)
     * @return the init object
     * @throws IllegalArgumentException if the hybrid engine is not installed, or if
     *                                  {@code threadsPerNode} is negative or above the node
     *                                  barrier's limit; at {@code hook}: if the ranks disagree on it
     * @throws IllegalStateException    at {@code hook}: if MPI is not initialised or gives less
     *                                  than {@code MPI_THREAD_FUNNELED}
     */
    public static Init init(long comm, int threadsPerNode) {
        String call = "hook(MpiHybrid.init(comm=" + comm + ", threadsPerNode=" + threadsPerNode + "))";
        LayeredEngine hybrid;
        try {
            hybrid = (LayeredEngine) Components.installed().byName(Framework.ENGINE, "hybrid");
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new IllegalArgumentException("MpiHybrid.init(comm=" + comm + ", threadsPerNode=" + threadsPerNode
                    + "): needs the hybrid engine (lpf4j-engine-hybrid) installed: " + e.getMessage(), e);
        }
        return hybrid.overNodes(threadsPerNode, call, () -> {
            int level = MpiEngine.threadLevel();
            if (level < 0) {
                throw new IllegalStateException(call + ": MPI is not initialised (call MPI_Init_thread first, or use"
                        + " Lpf.root() under an MPI launcher)");
            }
            if (level < THREAD_FUNNELED) {
                throw new IllegalStateException(call + ": MPI was initialised with thread level " + level
                        + "; the hybrid engine runs threads beside MPI and needs at least MPI_THREAD_FUNNELED (1)");
            }
            return new LayeredEngine.Nodes(MpiEngine.size(comm), MpiEngine.init(comm));
        });
    }

    /** @return {@link #init(long, int)} with {@code lpf.engine.hybrid.threads} processes per node */
    public static Init init(long comm) { return init(comm, 0); }
}
