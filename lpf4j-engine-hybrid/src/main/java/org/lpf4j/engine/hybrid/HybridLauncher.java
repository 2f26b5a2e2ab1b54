package org.lpf4j.engine.hybrid;

import org.lpf4j.engine.mpi.MpiLauncher;
import org.lpf4j.spi.ProcessLauncher;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code lpf run --engine hybrid -p P} with {@code lpf.engine.hybrid.launchNodes=N} ({@code lpf run
 * --nodes N}): N JVMs through the launcher of the engine between the nodes (MPI's; over the net
 * engine, its launcher on this machine), ⌈P/N⌉ threads each, a machine of P
 * processes ({@code lpf.engine.hybrid.procs}). With hosts given
 * ({@code lpf.engine.mpi.launcherOptions}) Open MPI places one rank per node
 * ({@code --map-by ppr:1:node}); under srun in an allocation of at least N nodes, srun does
 * ({@code -N N --ntasks-per-node=1}); otherwise the N JVMs run on this machine and stand for N nodes
 * ({@code lpf.engine.hybrid.nodes=rank}). Pure: builds a list (and may ask srun for its MPI plugins).
 */
final class HybridLauncher implements ProcessLauncher {
    private final ProcessLauncher mpi;

    /** @param mpi the launcher of the engine between the nodes */
    HybridLauncher(ProcessLauncher mpi) { this.mpi = mpi; }

    @Override
    public List<String> command(Launch launch) {
        int p = launch.processes();
        int nodes = HybridEngine.LAUNCH_NODES.get();
        if (nodes == 0) nodes = Math.min(p, 2);
        if (nodes > p) throw new IllegalArgumentException("lpf run --engine hybrid: --nodes " + nodes + " exceeds -p " + p);
        int threads = (p + nodes - 1) / nodes;
        // Over another engine than MPI, lpf run starts the node JVMs on this machine (they stand for nodes).
        boolean cluster = mpi instanceof MpiLauncher m && m.onePerNode(nodes);
        List<String> jvm = new ArrayList<>();
        jvm.add("-Dlpf.engine=hybrid");
        jvm.add("-D" + HybridEngine.OVER.key() + "=" + HybridEngine.OVER.get());
        jvm.add("-Dlpf.engine.hybrid.threads=" + threads);
        jvm.add("-Dlpf.engine.hybrid.procs=" + p); // nodes x threads may exceed p (5 on 3 nodes: 2 + 2 + 1)
        jvm.add("-Dlpf.engine.threads.procs=" + threads); // nested sections on the threads engine
        if (!cluster) jvm.add("-Dlpf.engine.hybrid.nodes=rank");
        jvm.addAll(launch.jvmOptions());
        return mpi.command(new Launch(nodes, launch.javaCommand(), launch.classPath(), jvm, launch.mainClass(), launch.args()));
    }
}
