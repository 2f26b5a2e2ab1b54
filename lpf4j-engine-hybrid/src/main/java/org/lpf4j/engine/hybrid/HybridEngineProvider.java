package org.lpf4j.engine.hybrid;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Init;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;
import org.lpf4j.spi.kit.LaunchedHost;
import org.lpf4j.spi.kit.LayeredEngine;
import org.lpf4j.spi.kit.NodeLevelEngine;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Engine module {@code hybrid}, found by {@link java.util.ServiceLoader}. It needs the engine
 * between its nodes ({@link HybridParameters#OVER}: any installed {@link NodeLevelEngine}, found by
 * name in the component registry; the MPI engine, with libmpi and a launcher, or the net engine)
 * and declines with that engine's reason otherwise. Selection:
 * <ul>
 *   <li><b>automatic, priority 90</b> (above the MPI engine's 80), over MPI only, when an MPI launcher started
 *       this JVM as one of several ranks with exactly one rank on this host
 *       ({@code OMPI_COMM_WORLD_LOCAL_SIZE} or {@code MPI_LOCALNRANKS} is 1) and the host has more
 *       than one core: one JVM per node was launched, so threads inside the node are what the
 *       job wants;</li>
 *   <li>otherwise priority 5: usable when chosen ({@code lpf.engine=hybrid}, or
 *       {@code lpf run --engine hybrid --nodes N}), never the default. {@link #why()} says which
 *       case applies; {@code lpf info} shows the priority.</li>
 * </ul>
 * As a {@link LayeredEngine} it runs its threads inside another engine's section that a program
 * hooks (the MPI engine's {@code MpiHybrid.init(comm, t)}).
 */
public final class HybridEngineProvider implements EngineProvider, LayeredEngine {
    /** The hybrid engine's version. */
    public static final Version VERSION = new Version(0, 1, 0);
    /** The engine's name. */
    public static final String NAME = "hybrid";

    /** Used by {@link java.util.ServiceLoader}. */
    public HybridEngineProvider() {}

    @Override public String name() { return NAME; }

    @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }

    @Override public Version version() { return VERSION; }

    @Override
    public void open(ModuleParameters parameters) {
        HybridParameters.parameters().forEach(parameters::adopt);
    }

    @Override
    public Query query() {
        EngineProvider level;
        try {
            level = NodeLevel.provider();
        } catch (IllegalArgumentException e) {
            return Query.decline("needs the " + HybridParameters.OVER.get() + " engine between its nodes (" + HybridParameters.OVER.key()
                    + "): " + e.getMessage());
        }
        Query q = level.query();
        if (!q.canRun()) return Query.decline("needs the " + level.name() + " engine, which declined: " + q.reason());
        return Query.run(NodeLevel.overDefault() && automatic() ? 90 : 5);
    }

    /** @return whether one JVM per node was launched on a multi-core node (see the class comment) */
    static boolean automatic() {
        try {
            return launchedRanks() > 1 && NodeLevel.facts().ranksOnThisHost() == 1 && Runtime.getRuntime().availableProcessors() > 1;
        } catch (IllegalArgumentException e) {
            return false; // the engine between the nodes is not installed: query says so
        }
    }

    /** @return why the engine is (or is not) chosen automatically, for {@code lpf info} and errors */
    public static String why() {
        if (automatic()) {
            return "chosen automatically: one MPI rank on this host of " + launchedRanks() + " ranks, "
                    + Runtime.getRuntime().availableProcessors() + " cores";
        }
        if (!NodeLevel.overDefault()) return "not automatic: over the " + HybridParameters.OVER.get() + " engine, chosen by name only";
        try {
            return launchedRanks() <= 1 ? "not automatic: no MPI launcher started this JVM as one of several ranks"
                    : "not automatic: " + NodeLevel.facts().ranksOnThisHost() + " MPI ranks share this host (one JVM per node is this engine's set-up)";
        } catch (IllegalArgumentException e) {
            return "not automatic: " + e.getMessage();
        }
    }

    /** @return the job size the node level's launcher gave this JVM, 0 if none launched it */
    private static int launchedRanks() {
        EngineProvider level = NodeLevel.provider();
        return level.launcher().isEmpty() ? level.machineSize() : 0;
    }

    /**
     * Under a launcher: ranks × threads per node; otherwise threads per node (one node); fewer if
     * {@code lpf.engine.hybrid.procs} says so.
     */
    @Override
    public int machineSize() {
        return HybridSettings.machineSize(Math.max(1, NodeLevel.provider().machineSize()),
                HybridSettings.resolve(NodeLevel.facts().ranksOnThisHost()).threads());
    }

    /**
     * Nothing: under a launcher the launch sized the job ({@code lpf run -p} and {@code lpf probe -p}
     * go through {@link #launcher()}); outside one this JVM is one node of
     * {@code lpf.engine.hybrid.threads} processes (the cores by default), which a command does not
     * grow behind the user's back: {@code lpf bench} refuses more, naming that parameter.
     */
    @Override
    public java.util.Map<String, String> settingsForProcesses(int n) {
        return java.util.Map.of();
    }

    @Override
    public Optional<ProcessLauncher> launcher() {
        EngineProvider level = NodeLevel.provider();
        return level.launcher().map(l -> new HybridLauncher(l, (NodeLevelEngine) level));
    }

    @Override
    public void shutdown() { NodeLevel.provider().shutdown(); }

    /**
     * Rank 0: the hybrid root over the node-level engine's root; every other rank serves sections
     * and never returns.
     */
    @Override
    public Context root() {
        EngineProvider level = NodeLevel.provider();
        NodeLevelEngine facts = (NodeLevelEngine) level;
        HybridSettings settings = HybridSettings.resolve(facts.ranksOnThisHost());
        // Bound to CPUs of its own, a node's leader waits without yielding; otherwise it yields.
        facts.waitPolicy(!NodeCpus.decide(facts.localRank(), settings.threads())); // before the level starts (MPI_Init)
        Context nodesRoot = level.root();
        return new HybridRoot(nodesRoot, facts.jobProcesses(), settings);
    }

    /**
     * The hybrid section over nodes another engine hooks (see {@link LayeredEngine}): each node
     * first checks that every node has the same threads per node. Threads per node default as
     * for {@code Lpf.root()}, from the cores and the ranks the launcher put on this host
     * ({@link LaunchedHost}).
     */
    @Override
    public Init overNodes(int threadsPerNode, String call, Supplier<Nodes> nodes) {
        Objects.requireNonNull(call, "overNodes: call");
        Objects.requireNonNull(nodes, "overNodes: nodes");
        if (threadsPerNode < 0 || threadsPerNode > org.lpf4j.engine.threads.group.DisseminationBarrier.MAX_PARTIES) {
            throw new IllegalArgumentException(call + ": threadsPerNode=" + threadsPerNode + "; need 0 <= threadsPerNode <= "
                    + org.lpf4j.engine.threads.group.DisseminationBarrier.MAX_PARTIES);
        }
        return (spmd, args) -> {
            Objects.requireNonNull(spmd, "hook: spmd");
            Objects.requireNonNull(args, "hook: args");
            Nodes n = nodes.get();
            HybridSettings settings = HybridSettings.resolve(LaunchedHost.ranksOnThisHost(), threadsPerNode);
            int t = settings.threads();
            Layout layout = Layout.of(n.count() * t, n.count(), t);
            NodeSection section = new NodeSection(layout, spmd, settings, call);
            try {
                // Each node made its layout from its own threadsPerNode: the section first checks they agree.
                n.init().hook(section, args);
            } catch (FatalException e) {
                if (section.refusal() != null) throw section.refusal();
                throw HybridRoot.unpack(call + " on the hybrid engine (" + layout + ")", e);
            }
        };
    }
}
