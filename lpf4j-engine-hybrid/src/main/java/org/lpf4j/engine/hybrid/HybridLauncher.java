package org.lpf4j.engine.hybrid;

import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.spi.kit.NodeLevelEngine;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code lpf run --engine hybrid -p P} with {@code lpf.engine.hybrid.launchNodes=N} ({@code lpf run
 * --nodes N}): N JVMs through the launcher of the engine between the nodes (MPI's; over the net
 * engine, its launcher on this machine), ⌈P/N⌉ threads each, a machine of P
 * processes ({@code lpf.engine.hybrid.procs}). Where that engine can place one JVM per node
 * ({@link NodeLevelEngine#onePerNode}: over MPI, with hosts given in
 * {@code lpf.engine.mpi.launcherOptions} Open MPI places one rank per node
 * ({@code --map-by ppr:1:node}); under srun in an allocation of at least N nodes, srun does
 * ({@code -N N --ntasks-per-node=1})), it does; otherwise the N JVMs run on this machine and stand for N nodes
 * ({@code lpf.engine.hybrid.nodes=rank}). Pure: builds a list (and may ask srun for its MPI plugins).
 */
final class HybridLauncher implements ProcessLauncher {
    private final ProcessLauncher launcher;
    private final NodeLevelEngine level;

    /**
     * @param launcher the launcher of the engine between the nodes
     * @param level that engine
     */
    HybridLauncher(ProcessLauncher launcher, NodeLevelEngine level) {
        this.launcher = launcher;
        this.level = level;
    }

    @Override
    public List<String> command(Launch launch) {
        int p = launch.processes();
        int nodes = HybridParameters.LAUNCH_NODES.get();
        if (nodes == 0) nodes = Math.min(p, 2);
        if (nodes > p) throw new IllegalArgumentException("lpf run --engine hybrid: --nodes " + nodes + " exceeds -p " + p);
        int threads = (p + nodes - 1) / nodes;
        boolean cluster = level.onePerNode(launcher, nodes);
        List<String> jvm = new ArrayList<>();
        jvm.add("-Dlpf.engine=hybrid");
        jvm.add("-D" + HybridParameters.OVER.key() + "=" + HybridParameters.OVER.get());
        jvm.add("-Dlpf.engine.hybrid.threads=" + threads);
        jvm.add("-Dlpf.engine.hybrid.procs=" + p); // nodes x threads may exceed p (5 on 3 nodes: 2 + 2 + 1)
        jvm.add("-Dlpf.engine.threads.procs=" + threads); // nested sections on the threads engine
        if (!cluster) jvm.add("-Dlpf.engine.hybrid.nodes=rank");
        jvm.addAll(launch.jvmOptions());
        return launcher.command(new Launch(nodes, launch.javaCommand(), launch.classPath(), jvm, launch.mainClass(), launch.args()));
    }
}
