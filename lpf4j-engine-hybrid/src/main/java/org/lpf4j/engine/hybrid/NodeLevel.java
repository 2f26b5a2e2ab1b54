package org.lpf4j.engine.hybrid;

import org.lpf4j.engine.mpi.MpiEngineProvider;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.Framework;

/**
 * The engine between the hybrid engine's nodes ({@link HybridEngine#OVER}): its provider gives
 * the node-level root (one process per node JVM), the launcher of the node JVMs and the job's
 * size in nodes. The MPI engine's provider is the hybrid engine's own instance (it may start
 * MPI); any other engine is the installed one of that name. Cheap: a parameter read and a lookup.
 */
final class NodeLevel {
    private NodeLevel() {}

    private static final MpiEngineProvider MPI = new MpiEngineProvider();

    /** @return whether the nodes are MPI ranks */
    static boolean overMpi() { return HybridEngine.OVER.get().equals("mpi"); }

    /**
     * @return the engine between the nodes
     * @throws IllegalArgumentException if it is not installed
     */
    static EngineProvider provider() {
        if (overMpi()) return MPI;
        return (EngineProvider) Components.installed().byName(Framework.ENGINE, HybridEngine.OVER.get());
    }

    /** @return the MPI engine's provider (for what only MPI offers: a hook over a communicator, the launcher's host facts) */
    static MpiEngineProvider mpi() { return MPI; }
}
