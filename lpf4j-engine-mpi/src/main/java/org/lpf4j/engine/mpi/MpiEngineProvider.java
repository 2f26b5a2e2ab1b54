package org.lpf4j.engine.mpi;

import org.lpf4j.Context;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.Query;
import org.lpf4j.spi.Version;

/**
 * Engine module {@code mpi}, found by {@link java.util.ServiceLoader}. {@link #query} runs (priority
 * 80, above threads) when libmpi loads and an MPI launcher started this JVM as one of several
 * ranks ({@code OMPI_COMM_WORLD_SIZE}, {@code PMI_SIZE}, {@code PMIX_RANK} with a size, or
 * {@code SLURM_NTASKS}); with a launcher of one rank it runs at priority 20 (below threads);
 * otherwise it declines, saying why.
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
        int size = launcherSize();
        if (size < 1) {
            return Query.decline("not started by an MPI launcher (none of OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK,"
                    + " SLURM_NTASKS is set); use 'lpf run --engine mpi -p N' or mpirun");
        }
        try {
            Mpi.load(MpiEngine.LIBRARY.get());
        } catch (RuntimeException | LinkageError e) {
            return Query.decline("no usable MPI library: " + e.getMessage());
        }
        return Query.run(size > 1 ? 80 : 20);
    }

    /** @return the job size the launcher announces, 0 if no launcher, -1... treated as none */
    static int launcherSize() {
        for (String v : new String[] {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS"}) {
            String s = System.getenv(v);
            if (s != null) {
                try {
                    return Integer.parseInt(s.strip());
                } catch (NumberFormatException e) {
                    return 1;
                }
            }
        }
        return System.getenv("PMIX_RANK") != null ? 1 : 0;
    }

    @Override
    public Context root() { return MpiRuntime.get().root(); }
}
