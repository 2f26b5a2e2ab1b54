package org.lpf4j.engine.hybrid;

import org.lpf4j.spi.Components;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.kit.NodeLevelEngine;

/**
 * The engine between the hybrid engine's nodes ({@link HybridParameters#OVER}), the installed engine
 * of that name from the component registry: its provider gives the node-level root (one process
 * per node JVM), the launcher of the node JVMs, and, as a {@link NodeLevelEngine}, the facts of
 * the host, one JVM per node, the wait policy and the job's size in nodes. Cheap: a parameter read
 * and a lookup.
 */
final class NodeLevel {
    private NodeLevel() {}

    /** The engine {@link #provider()} is chosen automatically over (see {@code HybridEngineProvider}). */
    static final String DEFAULT = "mpi";

    /** @return whether the nodes are processes of the default engine between nodes ({@value #DEFAULT}) */
    static boolean overDefault() { return HybridParameters.OVER.get().equals(DEFAULT); }

    /**
     * @return the engine between the nodes
     * @throws IllegalArgumentException if it is not installed or cannot carry nodes (it runs no JVM per process)
     */
    static EngineProvider provider() {
        EngineProvider p = (EngineProvider) Components.installed().byName(Framework.ENGINE, HybridParameters.OVER.get());
        if (!(p instanceof NodeLevelEngine)) {
            throw new IllegalArgumentException("engine " + p.name() + " does not run one process per JVM (it is no "
                    + NodeLevelEngine.class.getSimpleName() + ")");
        }
        return p;
    }

    /** @return {@link #provider()} as the node level's facts */
    static NodeLevelEngine facts() { return (NodeLevelEngine) provider(); }
}
