package org.lpf4j.engine.hybrid;

import org.lpf4j.Context;
import org.lpf4j.engine.mpi.MpiEngine;
import org.lpf4j.engine.mpi.layered.LaunchedHost;
import org.lpf4j.engine.mpi.layered.WaitPolicy;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;

import java.util.Optional;

/**
 * Engine module {@code hybrid}, found by {@link java.util.ServiceLoader}. It needs the engine
 * between its nodes ({@link HybridEngine#OVER}: the MPI engine, with libmpi and a launcher, or
 * the net engine) and declines with that engine's reason otherwise. Selection:
 * <ul>
 *   <li><b>automatic, priority 90</b> (above the MPI engine's 80) when an MPI launcher started
 *       this JVM as one of several ranks with exactly one rank on this host
 *       ({@code OMPI_COMM_WORLD_LOCAL_SIZE} or {@code MPI_LOCALNRANKS} is 1) and the host has more
 *       than one core: one JVM per node was launched, so threads inside the node are what the
 *       job wants;</li>
 *   <li>otherwise priority 5: usable when chosen ({@code lpf.engine=hybrid}, or
 *       {@code lpf run --engine hybrid --nodes N}), never the default. {@link #why()} says which
 *       case applies; {@code lpf info} shows the priority.</li>
 * </ul>
 */
public final class HybridEngineProvider implements EngineProvider {
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
        HybridEngine.parameters().forEach(parameters::adopt);
    }

    @Override
    public Query query() {
        EngineProvider level;
        try {
            level = NodeLevel.provider();
        } catch (IllegalArgumentException e) {
            return Query.decline("needs the " + HybridEngine.OVER.get() + " engine between its nodes (" + HybridEngine.OVER.key()
                    + "): " + e.getMessage());
        }
        Query q = level.query();
        if (!q.canRun()) return Query.decline("needs the " + level.name() + " engine, which declined: " + q.reason());
        return Query.run(NodeLevel.overMpi() && automatic() ? 90 : 5);
    }

    /** @return whether one JVM per node was launched on a multi-core node (see the class comment) */
    static boolean automatic() {
        return launchedRanks() > 1 && LaunchedHost.ranksOnThisHost() == 1 && Runtime.getRuntime().availableProcessors() > 1;
    }

    /** @return why the engine is (or is not) chosen automatically, for {@code lpf info} and errors */
    public static String why() {
        if (automatic()) {
            return "chosen automatically: one MPI rank on this host of " + launchedRanks() + " ranks, "
                    + Runtime.getRuntime().availableProcessors() + " cores";
        }
        if (!NodeLevel.overMpi()) return "not automatic: over the " + HybridEngine.OVER.get() + " engine, chosen by name only";
        return launchedRanks() <= 1 ? "not automatic: no MPI launcher started this JVM as one of several ranks"
                : "not automatic: " + LaunchedHost.ranksOnThisHost() + " MPI ranks share this host (one JVM per node is this engine's set-up)";
    }

    private static int launchedRanks() {
        return NodeLevel.mpi().launcher().isEmpty() ? NodeLevel.mpi().machineSize() : 0;
    }

    /**
     * Under a launcher: ranks × threads per node; otherwise threads per node (one node); fewer if
     * {@code lpf.engine.hybrid.procs} says so.
     */
    @Override
    public int machineSize() {
        return HybridSettings.machineSize(Math.max(1, NodeLevel.provider().machineSize()),
                HybridSettings.resolve(LaunchedHost.ranksOnThisHost()).threads());
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
        return NodeLevel.provider().launcher().map(HybridLauncher::new);
    }

    @Override
    public void shutdown() { NodeLevel.provider().shutdown(); }

    /**
     * Rank 0: the hybrid root over the node-level engine's root; every other rank serves sections
     * and never returns.
     */
    @Override
    public Context root() {
        HybridSettings settings = HybridSettings.resolve(LaunchedHost.ranksOnThisHost());
        if (!NodeLevel.overMpi()) {
            EngineProvider level = NodeLevel.provider();
            Context nodesRoot = level.root();
            return new HybridRoot(nodesRoot, level.machineSize(), settings);
        }
        // Bound to CPUs of its own, a node's leader waits in MPI without yielding; otherwise it yields.
        WaitPolicy.request(!NodeCpus.decide(settings.threads())); // before MPI_Init
        Context mpiRoot = NodeLevel.mpi().root();
        return new HybridRoot(mpiRoot, MpiEngine.size(MpiEngine.commWorld()), settings);
    }
}
