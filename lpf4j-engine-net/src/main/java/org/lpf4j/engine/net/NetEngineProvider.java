package org.lpf4j.engine.net;

import org.lpf4j.Context;
import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;
import org.lpf4j.spi.kit.LaunchedHost;
import org.lpf4j.spi.kit.NodeLevelEngine;

import java.util.Optional;

/**
 * Engine module {@code net}, found by {@link java.util.ServiceLoader}: the superstep protocol over
 * TCP between JVMs, JDK only. {@link #query} runs at priority 85 when {@code lpf run --engine net}
 * launched this JVM as one of several ({@link NetLaunch} sets {@code LPF_NET_SIZE}), so the
 * launched JVMs pick it; otherwise at priority 5: usable by name ({@code lpf run --engine net -p N},
 * which delegates to {@link #launcher()}; or JVMs started by any boot module with
 * {@code -Dlpf.engine=net}), never the default. {@code query} starts nothing. As a
 * {@link NodeLevelEngine} it carries the hybrid engine's nodes (one JVM per node).
 */
public final class NetEngineProvider implements EngineProvider, NodeLevelEngine {
    /** The net engine's version. */
    public static final Version VERSION = new Version(0, 1, 0);

    /** Used by {@link java.util.ServiceLoader}. */
    public NetEngineProvider() {}

    @Override public String name() { return "net"; }

    @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }

    @Override public Version version() { return VERSION; }

    @Override
    public void open(ModuleParameters parameters) { NetParameters.parameters().forEach(parameters::adopt); }

    @Override
    public Query query() { return Query.run(launchedSize() > 1 ? 85 : 5); }

    /**
     * @return the job size a launcher gave this JVM: {@link NetLaunch}'s, else what the selected
     *         boot module reads (srun, mpirun and other PMIx launchers) times
     *         {@code lpf.engine.net.perJvm} (the ranks of those JVMs; 1 for a JVM alone), 0 if
     *         nothing says
     */
    static int jobSize() {
        int known = knownJobSize;
        if (known > 0) return known;
        int size = askJobSize();
        if (size > 0) knownJobSize = size;
        return size;
    }

    /**
     * The job size once something said it (a launcher's variables or a boot module's membership
     * do not change during the JVM's life); 0 until then, so that a JVM where nothing says yet
     * (parameters such as {@code lpf.boot} still unset) asks again.
     */
    private static volatile int knownJobSize;

    /** {@link #jobSize} without the cache: reads the environment, then selects boot modules (file reads, a selection). */
    private static int askJobSize() {
        int launched = launchedSize();
        if (launched > 0) return launched;
        // The launcher's variables (the env module: no native call), else the selected module.
        Components components = Components.installed();
        for (String module : new String[] {"env", ""}) {
            try {
                BootModule boot = module.isEmpty() ? components.select(Framework.BOOT, BootModule.class)
                        : (BootModule) components.byName(Framework.BOOT, module);
                // The boot counts JVMs; each of a job's hosts perJvm ranks (JvmRanks), as NetLaunch's size already
                // counts them. A JVM alone is no job yet: lpf run's own JVM must still launch one.
                if (boot.query().canRun()) {
                    int jvms = boot.membership().size();
                    return jvms > 1 ? jvms * NetParameters.PER_JVM.get() : jvms;
                }
            } catch (RuntimeException e) {
                // not installed or cannot tell: the next
            }
        }
        return 0;
    }

    /** @return the job size {@link NetLaunch} gave this JVM, 0 if it did not start it */
    static int launchedSize() {
        String s = System.getenv(NetLaunch.SIZE_VARIABLE);
        if (s == null) return 0;
        try {
            return Math.max(1, Integer.parseInt(s.strip()));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /** Launched: the job size; otherwise 1. Cheap after the first answer that a launcher or boot module gave ({@link #jobSize}). */
    @Override
    public int machineSize() { return Math.max(1, jobSize()); }

    /**
     * The launcher for {@code lpf run -p N}, unless this JVM already is one of a launched job's
     * processes (started by {@link NetLaunch}, or a task of {@code srun --mpi=pmix}, which the
     * pmix boot module then connects): inside a Slurm allocation {@code srun} ({@link SrunLaunch}),
     * elsewhere {@link NetLaunch} on this machine.
     */
    @Override
    public Optional<ProcessLauncher> launcher() {
        if (jobSize() > 1) return Optional.empty();
        return Optional.of(SrunLaunch.applies() ? new SrunLaunch() : new NetLaunch.Launcher());
    }

    /** Rank 0: releases the other ranks (they exit) and closes the mesh. */
    @Override
    public void shutdown() { NetRuntime.INSTANCE.shutdown(); }

    @Override
    public Context root() { return NetRuntime.INSTANCE.get().root(); }

    /**
     * @return started by {@link NetLaunch}: its rank and size (all its JVMs run on this machine);
     *         otherwise what the launcher's variables say ({@link LaunchedHost}: srun, mpirun)
     */
    @Override
    public int[] localRank() {
        int[] launched = launchedLocalRank(System::getenv);
        return launched != null ? launched : LaunchedHost.localRank();
    }

    /**
     * @param env the environment
     * @return {@code {rank, size}} as {@link NetLaunch} gave them, or null if it did not start this JVM (or a value does not parse)
     */
    static int[] launchedLocalRank(java.util.function.UnaryOperator<String> env) {
        String size = env.apply(NetLaunch.SIZE_VARIABLE), rank = env.apply(NetLaunch.RANK_VARIABLE);
        if (size == null || rank == null || !size.strip().matches("\\d{1,6}") || !rank.strip().matches("\\d{1,6}")) return null;
        int r = Integer.parseInt(rank.strip()), n = Integer.parseInt(size.strip());
        return r < n ? new int[] {r, n} : null;
    }

    /** @return false: {@link NetLaunch} starts every JVM on this machine, and srun places them as {@code lpf.engine.net.launchNodes} says */
    @Override
    public boolean onePerNode(ProcessLauncher launcher, int jvms) { return false; }

    /** Whether a waiting process yields its core while it polls its sockets ({@link WaitRequest}). */
    @Override
    public void waitPolicy(boolean yield) { WaitRequest.yield = yield; }

    @Override
    public int jobProcesses() { return machineSize(); }
}
