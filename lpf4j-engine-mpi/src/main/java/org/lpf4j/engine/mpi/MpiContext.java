package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ProbeHarness;
import org.lpf4j.superstep.SuperstepContext;

import java.util.Objects;

/**
 * One process of an SPMD section of the MPI engine: the superstep protocol
 * ({@link SuperstepContext}) over an {@link MpiTransport} on the section's own communicator (a
 * duplicate, so no message of another section can match). What is the MPI engine's own: the
 * probe (a section over a duplicate of the communicator), nested sections, rehook's new
 * communicator, and freeing the communicator at the end.
 */
final class MpiContext extends SuperstepContext {
    private final Mpi mpi;
    private final long comm;
    private final String engineKey;
    private final int freeP;
    private final MpiSettings settings;

    /**
     * @param comm      the section's own communicator (this context frees it at {@link #close})
     * @param engineKey the probe cache key: processes that share it measure together
     * @param freeP     the processors this process has for nested sections (its share of the job)
     * @param objects   how objects from other processes (operators, exceptions) find their classes
     * @param settings  the engine's settings, resolved when the runtime started or the hook was called
     */
    MpiContext(Mpi mpi, long comm, Args args, String engineKey, int freeP, CrossJvmObjects objects, MpiSettings settings) {
        super(new MpiTransport(mpi, comm, settings.syncTimeoutMillis()), args, objects, settings.protocol(), "mpi");
        this.mpi = mpi;
        this.comm = comm;
        this.engineKey = engineKey;
        this.freeP = freeP;
        this.settings = settings;
    }

    /** @return the section's communicator (for the side-by-side benchmark's raw MPI rows) */
    long comm() { return comm; }

    /** @return the binding */
    Mpi mpi() { return mpi; }

    /** Collective: every process of the section must call it (the measurement is a section over a duplicate of the communicator). */
    @Override
    public Machine probe() {
        ProbeHarness.Fit fit = ProbeHarness.fitFor(engineKey, nprocs(),
                () -> Sections.measure(mpi, comm, engineKey, settings));
        Machine m = new Machine(nprocs(), freeP, fit.sizes(), fit.g(), fit.l());
        for (String w : fit.warnings()) m = m.withWarning(w); // lpf probe prints them
        return m;
    }

    @Override
    public void exec(int p, Spmd spmd, Args args) {
        Objects.requireNonNull(spmd, "exec: spmd");
        Objects.requireNonNull(args, "exec: args");
        if (p < 1) throw new IllegalArgumentException("exec(p=" + p + ") at pid " + pid() + ": p must be at least 1");
        requireLive("exec");
        Sections.nested(mpi, Math.min(p, freeP), spmd, args, engineKey, settings);
    }

    @Override
    protected org.lpf4j.FatalException runRehook(Spmd spmd, Args args) {
        return Sections.run(mpi, mpi.dup(comm), spmd, args, engineKey, "rehook", freeP, settings);
    }

    @Override
    protected void closeEngine() { mpi.free(comm); }
}
