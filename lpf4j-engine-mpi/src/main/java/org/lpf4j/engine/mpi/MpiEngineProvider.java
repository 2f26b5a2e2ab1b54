package org.lpf4j.engine.mpi;

import org.lpf4j.Context;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.RawTransport;
import org.lpf4j.spi.Version;

import java.util.Optional;
import java.util.SequencedMap;

/**
 * Engine module {@code mpi}, found by {@link java.util.ServiceLoader}. {@link #query} runs (priority
 * 80, above threads) when libmpi is installed and an MPI launcher started this JVM as one of
 * several ranks ({@code OMPI_COMM_WORLD_SIZE}, {@code PMI_SIZE}, {@code PMIX_SIZE} or
 * {@code SLURM_NTASKS}), so {@code mpirun -n 4 lpf run <class>} picks it without {@code --engine};
 * with a launcher of one rank at priority 20; without a launcher at priority 10 if mpirun, mpiexec
 * or srun is installed (usable as {@code lpf run --engine mpi -p N}, which delegates to
 * {@link #launcher()}); otherwise it declines, saying why. {@code query} loads nothing.
 */
public final class MpiEngineProvider implements EngineProvider {
    /** The MPI engine's version. */
    public static final Version VERSION = new Version(0, 1, 0);

    /** Used by {@link java.util.ServiceLoader}. */
    public MpiEngineProvider() {}

    @Override public String name() { return "mpi"; }

    @Override public Version frameworkApiVersion() { return new Version(1, 0, 0); }

    @Override public Version version() { return VERSION; }

    @Override
    public void open(ModuleParameters parameters) {
        MpiEngine.parameters().forEach(parameters::adopt);
    }

    @Override
    public Query query() {
        String found = MpiLibrary.locate(MpiEngine.LIBRARY.get());
        if (found == null) {
            return Query.decline("no libmpi found (looked for " + (MpiEngine.LIBRARY.get().isBlank()
                    ? String.join(", ", MpiLibrary.SONAMES) : MpiEngine.LIBRARY.get())
                    + " in LD_LIBRARY_PATH and the system library directories); install Open MPI or MPICH,"
                    + " or set lpf.engine.mpi.library");
        }
        int size = launcherSize();
        if (size > 1) return Query.run(80);
        if (size == 1) return Query.run(20);
        MpiLauncher launcher = MpiLauncher.forThisMachine();
        if (!launcher.available()) {
            return Query.decline("not started by an MPI launcher (none of OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_SIZE,"
                    + " SLURM_NTASKS is set) and no mpirun/mpiexec/srun on the PATH to start one");
        }
        return Query.run(10); // usable through its launcher (lpf run --engine mpi -p N), never the default
    }

    /** @return the job size the launcher announces, 0 if no launcher started this JVM */
    static int launcherSize() {
        for (String v : new String[] {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"}) {
            String s = System.getenv(v);
            if (s != null) {
                try {
                    return Math.max(1, Integer.parseInt(s.strip()));
                } catch (NumberFormatException e) {
                    return 1;
                }
            }
        }
        return System.getenv("PMIX_RANK") != null || System.getenv("PMI_RANK") != null ? 1 : 0;
    }

    /** Under a launcher: the job size; otherwise 1 (a root made here would be a singleton MPI job). */
    @Override
    public int machineSize() { return Math.max(1, launcherSize()); }

    /** The launcher for {@code lpf run -p N}, unless this JVM already is one of a launched job's processes. */
    @Override
    public Optional<ProcessLauncher> launcher() {
        return launcherSize() > 0 ? Optional.empty() : Optional.of(MpiLauncher.forThisMachine());
    }

    /** MPI on the section's communicator, for {@code lpf bench}'s rows beside the engine's ({@link MpiRawTransport}). */
    @Override
    public Optional<RawTransport> rawTransport() { return Optional.of(new MpiRawTransport()); }

    /** Rank 0: releases the other ranks (they exit) and finalizes MPI. */
    @Override
    public void shutdown() { MpiRuntime.shutdown(); }

    @Override
    public Context root() { return MpiRuntime.get().root(); }

    /**
     * For {@code lpf info}: the library file, Open MPI or MPICH, its {@code MPI_Get_library_version}
     * and the thread level granted ("not initialised" unless MPI runs in this JVM). Opens the library
     * but never initialises MPI (see {@code MpiDetails}).
     */
    @Override
    public SequencedMap<String, String> details() { return MpiDetails.of(MpiEngine.LIBRARY.get()); }
}
