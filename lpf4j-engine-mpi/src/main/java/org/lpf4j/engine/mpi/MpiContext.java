package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ProbeHarness;
import org.lpf4j.superstep.SuperstepContext;

import java.util.function.Supplier;

/**
 * One process of an SPMD section of the MPI engine: the superstep protocol
 * ({@link SuperstepContext}) over an {@link MpiTransport} on the section's own communicator (a
 * duplicate, so no message of another section can match). What is the MPI engine's own: the
 * sections that rehook and the probe start (over a duplicate of the communicator), a nested
 * section of one process (over {@code MPI_COMM_SELF}), and freeing the communicator at the end.
 */
final class MpiContext extends SuperstepContext {
    private final Mpi mpi;
    private final long comm;
    /** Whether {@link #close} frees {@link #comm} (not a communicator shared by the root contexts). */
    private final boolean ownsComm;
    private final String engineKey;
    private final int freeP;
    private final MpiSettings settings;
    private final SyncDeadline deadline;

    /**
     * @param comm      the section's communicator
     * @param ownsComm  whether it is the section's own (this context frees it at {@link #close})
     * @param engineKey the probe cache key: processes that share it measure together
     * @param freeP     the processors this process has for nested sections (its share of the job)
     * @param objects   how objects from other processes (operators, exceptions) find their classes
     * @param settings  the engine's settings, resolved when the runtime started or the hook was called
     * @param around    the deadline of the communicator {@code comm} was made from, or null ({@link SyncDeadline})
     */
    MpiContext(Mpi mpi, long comm, boolean ownsComm, Args args, String engineKey, int freeP, CrossJvmObjects objects, MpiSettings settings,
               SyncDeadline around) {
        this(new MpiTransport(mpi, comm, settings.syncTimeoutMillis(), settings.polls(), around), mpi, comm, ownsComm, args, engineKey,
                freeP, objects, settings);
    }

    private MpiContext(MpiTransport transport, Mpi mpi, long comm, boolean ownsComm, Args args, String engineKey, int freeP,
                       CrossJvmObjects objects, MpiSettings settings) {
        super(transport, args, objects, settings.protocol(), "mpi");
        this.deadline = transport.deadline();
        this.mpi = mpi;
        this.comm = comm;
        this.ownsComm = ownsComm;
        this.engineKey = engineKey;
        this.freeP = freeP;
        this.settings = settings;
    }

    /** @return the section's communicator (for the side-by-side benchmark's raw MPI rows) */
    long comm() { return comm; }

    /** @return the binding */
    Mpi mpi() { return mpi; }

    /** The figures of one placement are kept per JVM ({@link ProbeHarness#fitFor}): one process of a section per JVM. */
    @Override
    protected ProbeHarness.Fit probeFit(Supplier<ProbeHarness.Fit> measure) { return ProbeHarness.fitFor(engineKey, nprocs(), measure); }

    @Override protected String probeKey() { return engineKey; }

    @Override protected long probeNanos() { return settings.probeNanos(); }

    @Override protected int freeP() { return freeP; }

    /**
     * A section over a duplicate of this section's communicator, made under this section's sync
     * deadline: a process that does not join is named, as in a sync ({@link SyncDeadline.Passed}).
     */
    @Override
    protected FatalException runChild(Spmd spmd, Args args, String call) {
        deadline.beginJoin(nprocs(), call);
        return Sections.run(mpi, deadline.dup(comm), spmd, args, engineKey, call, freeP, settings, deadline);
    }

    /** A section over a duplicate of {@code MPI_COMM_SELF}. */
    @Override
    protected FatalException runAlone(Spmd spmd, Args args, String call) {
        return Sections.run(mpi, mpi.dup(mpi.commSelf()), spmd, args, engineKey + "/self", call, 1, settings, null);
    }

    @Override
    protected void closeEngine() {
        if (ownsComm) mpi.free(comm);
    }
}
