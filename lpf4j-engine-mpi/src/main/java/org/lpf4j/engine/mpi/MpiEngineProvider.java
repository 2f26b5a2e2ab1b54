package org.lpf4j.engine.mpi;

import org.lpf4j.engine.mpi.layered.WaitPolicy;
import org.lpf4j.spi.kit.LaunchVariables;
import org.lpf4j.spi.kit.LaunchedHost;
import org.lpf4j.spi.kit.NodeLevelEngine;
import org.lpf4j.spi.kit.Slurm;

import org.lpf4j.Context;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.RawBaseline;
import org.lpf4j.spi.Version;

import java.util.List;
import java.util.Optional;
import java.util.SequencedMap;

/**
 * Engine module {@code mpi}, found by {@link java.util.ServiceLoader}. {@link #query} runs (priority
 * 80, above threads) when libmpi is installed and an MPI launcher started this JVM as one of
 * several ranks ({@code OMPI_COMM_WORLD_SIZE}, {@code PMI_SIZE}, {@code PMIX_SIZE} or, in a task
 * of an srun step, {@code SLURM_STEP_NUM_TASKS}; a Slurm allocation itself, {@code salloc}'s shell or an
 * {@code sbatch} script, is no launch: see {@link Slurm}), so {@code mpirun -n 4 lpf run <class>} picks it without {@code --engine};
 * with a launcher of one rank at priority 20; without a launcher at priority 10 if the launcher
 * that belongs to the library is installed ({@link MpiLauncher#forLibrary}; usable as
 * {@code lpf run --engine mpi -p N}, which delegates to {@link #launcher()}); otherwise it declines,
 * saying why. {@code query} loads nothing. As a {@link NodeLevelEngine} it carries the hybrid
 * engine's nodes (one rank per node JVM).
 */
public final class MpiEngineProvider implements EngineProvider, NodeLevelEngine {
    /** The MPI engine's version. */
    public static final Version VERSION = new Version(0, 1, 0);

    /** Used by {@link java.util.ServiceLoader}. */
    public MpiEngineProvider() {}

    @Override public String name() { return "mpi"; }

    @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }

    @Override public Version version() { return VERSION; }

    @Override
    public void open(ModuleParameters parameters) {
        MpiParameters.parameters().forEach(parameters::adopt);
    }

    @Override
    public Query query() {
        String found = MpiLibrary.locate(MpiParameters.LIBRARY.get());
        if (found == null) {
            return Query.decline("no libmpi found (looked for " + (MpiParameters.LIBRARY.get().isBlank()
                    ? String.join(", ", MpiLibrary.SONAMES) : MpiParameters.LIBRARY.get())
                    + " in LD_LIBRARY_PATH and the system library directories); install Open MPI or MPICH,"
                    + " or set lpf.engine.mpi.library");
        }
        int size = launcherSize();
        if (size > 1) return Query.run(80);
        if (size == 1) return Query.run(20);
        MpiLauncher launcher = MpiLauncher.forThisMachine();
        if (!launcher.available()) {
            return Query.decline("not started by an MPI launcher (none of " + String.join(", ",
                    java.util.Arrays.stream(LaunchVariables.values()).map(LaunchVariables::sizeVariable).toList())
                    + " is set), and none to start one: " + launcher.unavailableReason());
        }
        return Query.run(10); // usable through its launcher (lpf run --engine mpi -p N), never the default
    }

    /**
     * What the launcher that started this JVM announced.
     *
     * @param variables the launcher's variables ({@link LaunchVariables})
     * @param size      the job size it gives (at least 1; 1 if it is not a number)
     */
    record Announcement(LaunchVariables variables, int size) {
        /** @return who sets this variable, for messages */
        String launcher() { return variables.launcher(); }

        /** @return the variable that gave the size */
        String variable() { return variables.sizeVariable(); }
    }

    /** @return what the launcher that started this JVM announced, or null if none did */
    static Announcement announcement() {
        LaunchVariables v = LaunchVariables.of(System::getenv);
        if (v == null) return null;
        try {
            return new Announcement(v, Math.max(1, Integer.parseInt(System.getenv(v.sizeVariable()).strip())));
        } catch (NumberFormatException e) {
            return new Announcement(v, 1);
        }
    }

    /** @return the job size the launcher announces, 0 if no launcher started this JVM */
    static int launcherSize() {
        Announcement a = announcement();
        if (a != null) return a.size();
        // A PMI/PMIx rank without a size (a singleton a PMI server started): one process.
        return System.getenv(LaunchVariables.PMIX.rankVariable()) != null || System.getenv(LaunchVariables.PMI.rankVariable()) != null ? 1 : 0;
    }

    /** Under a launcher: the job size; otherwise 1 (a root made here would be a singleton MPI job). */
    @Override
    public int machineSize() { return Math.max(1, launcherSize()); }

    /**
     * The launcher for {@code lpf run -p N}, unless this JVM already is one of a launched job's
     * processes; the only task of a Slurm step (the shell of {@code srun --pty bash}) launches too.
     */
    @Override
    public Optional<ProcessLauncher> launcher() {
        return launcherSize() > 0 && !Slurm.singleTaskStep(System::getenv) ? Optional.empty() : Optional.of(MpiLauncher.forThisMachine());
    }

    /** MPI on the section's communicator, for {@code lpf bench}'s rows beside the engine's ({@link MpiRawBaseline}). */
    @Override
    public Optional<RawBaseline> rawBaseline() { return Optional.of(new MpiRawBaseline()); }

    /** Rank 0: releases the other ranks (they exit) and finalizes MPI. */
    @Override
    public void shutdown() { MpiRuntime.INSTANCE.shutdown(); }

    @Override
    public Context root() { return MpiRuntime.get().root(); }

    /** @return the launcher's local rank variables ({@link LaunchedHost}) */
    @Override
    public int[] localRank() { return LaunchedHost.localRank(); }

    @Override
    public int ranksOnThisHost() { return LaunchedHost.ranksOnThisHost(); }

    /** @return {@link MpiLauncher#onePerNode} for this engine's launcher; false for any other */
    @Override
    public boolean onePerNode(ProcessLauncher launcher, int jvms) {
        return launcher instanceof MpiLauncher m && m.onePerNode(jvms);
    }

    /** Open MPI's yield setting, before MPI starts ({@link WaitPolicy}); MPICH has none. */
    @Override
    public void waitPolicy(boolean yield) { WaitPolicy.request(yield); }

    /** @return the ranks of {@code MPI_COMM_WORLD} */
    @Override
    public int jobProcesses() { return MpiEngine.size(MpiEngine.commWorld()); }

    /**
     * For {@code lpf info}: the library file, Open MPI or MPICH, its {@code MPI_Get_library_version}
     * and the thread level granted ("not initialised" unless MPI runs in this JVM), and the launcher
     * {@code lpf run -p N} would start ({@link MpiLauncher#describe}). Opens the library
     * but never initialises MPI (see {@code MpiDetails}).
     */
    @Override
    public SequencedMap<String, String> details() {
        SequencedMap<String, String> d = MpiDetails.of(MpiParameters.LIBRARY.get());
        d.put("lpf run -p N starts", MpiLauncher.forThisMachine().describe());
        return d;
    }
}
