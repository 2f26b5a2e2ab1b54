package org.lpf4j.engine.net;

import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.spi.kit.Slurm;

import java.util.List;

/**
 * The net engine's launcher inside a Slurm allocation ({@code salloc}, {@code sbatch}, the shell
 * of {@code srun --pty bash}): {@code srun --mpi=pmix -n P} starts the JVMs as the tasks of a step,
 * and each boots through Slurm's PMIx (the {@code pmix} boot module) before the mesh connects.
 * Slurm's own options for the step are {@link Slurm#srunCommand}'s; {@code lpf run --nodes N}
 * becomes {@code -N N}. Refuses, saying what to
 * install, when srun has no PMIx plugin.
 */
final class SrunLaunch implements ProcessLauncher {
    /** @return whether this JVM should launch with srun: inside an allocation, or the only task of a step */
    static boolean applies() { return Slurm.allocation() || Slurm.singleTaskStep(System::getenv); }

    @Override
    public List<String> command(Launch launch) {
        List<String> plugins = Slurm.mpiPlugins();
        if (!plugins.contains("pmix")) {
            throw new IllegalStateException("lpf run --engine net inside a Slurm allocation starts its JVMs with srun --mpi=pmix,"
                    + " but this srun's MPI plugins are " + plugins + " (srun --mpi=list): install Slurm's PMIx plugin"
                    + " (Debian: slurm-wlm with libpmix-dev), or start the JVMs by hand with the tcp boot (docs/engines.md, \"The net engine\")");
        }
        List<String> c = Slurm.srunCommand("srun", "pmix");
        int nodes = NetParameters.LAUNCH_NODES.get();
        if (nodes > 0) c.addAll(List.of("-N", Integer.toString(Math.min(nodes, launch.processes()))));
        c.addAll(List.of("-n", Integer.toString(launch.processes())));
        c.addAll(launch.javaCommandLine());
        return c;
    }
}
