package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Init;
import org.lpf4j.Spmd;

import java.util.Objects;

/**
 * The MPI engine's public entry points: {@link #init(long)} for {@link org.lpf4j.Lpf#hook} over a
 * communicator of a program that already uses MPI, {@link #init(org.lpf4j.spi.boot.BootSession)}
 * for JVMs that no MPI launcher started (joined over a boot session). Its parameters are
 * {@link MpiParameters}.
 *
 * <p>Under an MPI launcher, {@code Lpf.root()} with this engine initialises MPI; on rank 0 it
 * returns the root context (its {@code exec(p)} runs on the first p ranks), on every other rank
 * it does not return: the rank waits for sections and exits (status 0) when rank 0's JVM ends.
 * Call {@code Lpf.root()} early in {@code main}: code before it runs on every rank.
 */
public final class MpiEngine {
    private MpiEngine() {}

    /**
     * An {@link Init} over an existing MPI communicator: every member of {@code comm} calls
     * {@code Lpf.hook(MpiEngine.init(comm), spmd, args)} together; each gets its own {@code args},
     * pid = its rank in {@code comm}. MPI must already be initialised (by the program) and is left
     * initialised. The section runs over a duplicate of {@code comm}. Every member must resolve
     * the same engine settings ({@code pairsInRoundUpTo}, {@code countExchange}, {@code sparseFrom}:
     * they decide which collectives a sync calls); otherwise every member's hook throws
     * {@link IllegalArgumentException} before the section starts (one {@code MPI_Allreduce}).
     *
     * @param comm the communicator handle as MPI's C API gives it: for Open MPI the pointer value,
     *             for MPICH the {@code int} value (e.g. {@link #commWorld()})
     * @return the init object
     */
    public static Init init(long comm) {
        return (spmd, args) -> {
            Objects.requireNonNull(spmd, "hook: spmd");
            Objects.requireNonNull(args, "hook: args");
            Mpi mpi = Mpi.load(MpiParameters.LIBRARY.get());
            if (!mpi.initialized() || mpi.finalized()) {
                throw new IllegalStateException("hook(MpiEngine.init(" + comm + ")): MPI is not initialised"
                        + " (call MPI_Init first, or use Lpf.root() under an MPI launcher)");
            }
            MpiSettings settings = MpiSettings.resolve(mpi.abi);
            long section = mpi.dup(comm);
            Sections.agree(mpi, section, settings, "hook(MpiEngine.init(" + comm + "))");
            FatalException f = Sections.run(mpi, section, spmd, args, "mpi-hook", "hook", 1, settings, null);
            if (f != null) throw f;
        };
    }

    /**
     * An {@link Init} for JVMs that no MPI launcher started, joined through a boot session (C LPF's
     * {@code lpf_mpi_initialize_over_tcp}): every process of {@code session} calls
     * {@code Lpf.hook(MpiEngine.init(session), spmd, args)}; each initialises MPI as a singleton
     * (unless already initialised; MPI is left initialised afterwards), the processes join with
     * {@code MPI_Open_port}/{@code MPI_Comm_connect}/{@code MPI_Comm_accept} over the port name
     * rank 0 publishes in the session, and the section runs with pid = boot rank. Cost: the join
     * (n - 1 boot fences and MPI connects) on every call. Which MPI libraries allow this without a
     * launcher: see the package documentation.
     *
     * @param session the open boot session of every process of the job (not closed here)
     * @return the init object
     */
    public static Init init(org.lpf4j.spi.boot.BootSession session) {
        Objects.requireNonNull(session, "MpiEngine.init: session");
        return (spmd, args) -> {
            Objects.requireNonNull(spmd, "hook: spmd");
            Objects.requireNonNull(args, "hook: args");
            Mpi mpi = Mpi.load(MpiParameters.LIBRARY.get());
            long comm = BootJoin.join(mpi, session, java.time.Duration.ofSeconds(60));
            MpiSettings settings = MpiSettings.resolve(mpi.abi);
            Sections.agree(mpi, comm, settings, "hook(MpiEngine.init(session))");
            FatalException f = Sections.run(mpi, comm, spmd, args, "mpi-hook", "hook", 1, settings, null); // frees comm
            if (f != null) throw f;
        };
    }

    /** @return an {@link Init} over {@code MPI_COMM_WORLD} (see {@link #init(long)}) */
    public static Init init() {
        return init(commWorld());
    }

    /**
     * @param path a libmpi path or soname, or empty for the usual sonames
     * @return whether that library is installed (looked up on disk; nothing is loaded)
     */
    public static boolean libraryInstalled(String path) { return MpiLibrary.locate(path) != null; }

    /**
     * @return the thread level MPI granted ({@code MPI_Query_thread}: 0 SINGLE, 1 FUNNELED,
     *         2 SERIALIZED, 3 MULTIPLE), or -1 if MPI is not initialised or already finalized
     */
    public static int threadLevel() {
        Mpi mpi = Mpi.load(MpiParameters.LIBRARY.get());
        return mpi.initialized() && !mpi.finalized() ? mpi.queryThread() : -1;
    }

    /**
     * @param comm a communicator handle as MPI's C API gives it (see {@link #init(long)})
     * @return its number of ranks ({@code MPI_Comm_size}); MPI must be initialised
     */
    public static int size(long comm) {
        return Mpi.load(MpiParameters.LIBRARY.get()).size(comm);
    }

    /** @return the handle of {@code MPI_COMM_WORLD} of the library this engine loads */
    public static long commWorld() {
        return Mpi.load(MpiParameters.LIBRARY.get()).commWorld();
    }
}
