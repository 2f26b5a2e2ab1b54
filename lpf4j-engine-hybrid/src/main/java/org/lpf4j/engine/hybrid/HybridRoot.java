package org.lpf4j.engine.hybrid;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.ForwardingContext;
import org.lpf4j.spi.kit.RequestChecks;
import org.lpf4j.superstep.WholeJobProbe;

/**
 * The root context on rank 0: a valid one-process context (the node-level engine's root: MPI's,
 * over {@code MPI_COMM_SELF}, or the net engine's) whose {@code exec(p)} runs a hybrid section of
 * {@code min(p, nodes × t)} processes laid out by {@link Layout} (the node-level engine ships a
 * {@link NodeSection} to each node used), and whose {@code probe()} reports the whole hybrid machine.
 */
final class HybridRoot extends ForwardingContext {
    private final int ranks;
    private final HybridSettings settings;

    /**
     * @param nodesRoot the root context of the engine between the nodes (its pid 0)
     * @param ranks    the processes of that engine's job (the nodes)
     * @param settings the engine's settings, resolved here and shipped with every section
     */
    HybridRoot(Context nodesRoot, int ranks, HybridSettings settings) {
        super(nodesRoot);
        this.ranks = ranks;
        this.settings = settings;
    }

    /** @return nodes × threads per node, or {@code lpf.engine.hybrid.procs} if fewer */
    int machineSize() { return HybridSettings.machineSize(ranks, settings.threads()); }

    @Override
    public void exec(int p, Spmd spmd, Args args) {
        RequestChecks.checkExec(0, p, spmd, args);
        Layout layout = Layout.of(Math.min(p, machineSize()), ranks, settings.threads());
        try {
            delegate.exec(layout.nodes(), new NodeSection(layout, spmd, settings, null), args);
        } catch (FatalException e) {
            throw unpack("exec(p=" + layout.p() + ") on the hybrid engine (" + layout + ")", e);
        }
    }

    /**
     * @return the section's failure as the other engines report it: the processes' exceptions as
     *         cause and suppressed, the nodes' reasons (naming pids and nodes) in the message
     */
    static FatalException unpack(String call, FatalException e) {
        java.util.List<Throwable> causes = new java.util.ArrayList<>();
        java.util.List<String> reasons = new java.util.ArrayList<>();
        NodeFailed.flatten(e.getCause(), causes, reasons);
        for (Throwable s : e.getSuppressed()) NodeFailed.flatten(s, causes, reasons);
        String why = reasons.isEmpty() ? Nodes.explain(e.getMessage()) : String.join("; ", reasons);
        FatalException f = new FatalException(call + " failed: " + why
                + (causes.isEmpty() ? "" : ": " + causes.get(0)), causes.isEmpty() ? null : causes.get(0));
        for (int i = 1; i < causes.size(); i++) f.addSuppressed(causes.get(i));
        return f;
    }

    /**
     * Measures once per JVM (every process of a full-machine section takes part) and caches the
     * machine: the whole machine's g and l, and its two levels ({@link Machine#levels()}: the
     * nodes, one node's figures, one rank per node's figures; see {@link HybridProbe}).
     */
    @Override
    public Machine probe() {
        int p = machineSize();
        Layout layout = Layout.of(p, ranks, settings.threads());
        return WholeJobProbe.cached("hybrid/" + layout, () -> {
            exec(p, new ProbeSpmd(), Args.NONE);
            return HybridProbe.machine(p, p, HybridProbe.cached(layout), layout);
        });
    }

    /** Every process probes (collectively); the fit lands in each JVM's cache. */
    static final class ProbeSpmd implements Spmd {
        private static final long serialVersionUID = 1L;

        @Override
        public void run(Context ctx) { ctx.probe(); }
    }

    @Override
    public String toString() {
        return "HybridRoot[" + ranks + " nodes × " + settings.threads() + " threads, over " + HybridParameters.OVER.get() + "]";
    }
}
