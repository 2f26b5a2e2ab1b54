package org.lpf4j.spi.kit;

import org.lpf4j.Init;

import java.util.function.Supplier;

/**
 * An engine that runs several LPF processes (threads) inside each process of another engine's
 * section (the hybrid engine over a {@link NodeLevelEngine}). Implemented by its
 * {@link org.lpf4j.spi.EngineProvider}, so that an engine between JVMs can offer a hook over a job
 * it did not start (the MPI engine's {@code MpiHybrid.init(comm, t)}) without depending on the
 * layered engine's module: it finds the provider by name through {@link org.lpf4j.spi.Components}.
 */
public interface LayeredEngine {
    /**
     * The other engine's processes that become the layered section's nodes.
     *
     * @param count the processes (nodes) of the section {@code init} hooks
     * @param init  the other engine's {@link Init} over them, run once per node
     */
    record Nodes(int count, Init init) {
        /** Checks the values. */
        public Nodes {
            if (count < 1) throw new IllegalArgumentException("LayeredEngine.Nodes: count=" + count + " must be at least 1");
            java.util.Objects.requireNonNull(init, "LayeredEngine.Nodes: init");
        }
    }

    /**
     * An {@link Init} whose section has {@code threadsPerNode} processes in each node, pids
     * numbered node by node. Cost: checks its arguments; {@code nodes} is called at hook time.
     *
     * @param threadsPerNode processes per node, the same on every node; 0 for the engine's default
     * @param call           the user's call, for messages (e.g. {@code hook(MpiHybrid.init(comm=..., threadsPerNode=2))})
     * @param nodes          called once when the section is hooked, on the hooking thread: the nodes
     *                       (it may throw what the other engine's hook would, e.g. MPI not initialised)
     * @return the init object
     * @throws IllegalArgumentException if {@code threadsPerNode} is negative or above the engine's limit
     */
    Init overNodes(int threadsPerNode, String call, Supplier<Nodes> nodes);
}
