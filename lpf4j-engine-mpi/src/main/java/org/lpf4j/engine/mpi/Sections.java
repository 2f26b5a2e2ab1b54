package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.superstep.StartupAgreement;
import org.lpf4j.superstep.SuperstepContext;

/**
 * Running one process's part of a section over a communicator: the context, the SPMD function,
 * the end round, and freeing everything.
 */
final class Sections {
    private Sections() {}

    /**
     * Runs {@code spmd} as this process of a section over {@code comm}, which it owns and frees.
     *
     * @param around the deadline of the communicator {@code comm} was made from, or null ({@link SyncDeadline})
     * @return the section's failure (with the causes on pid 0), or null
     */
    static FatalException run(Mpi mpi, long comm, Spmd spmd, Args args, String engineKey, String call, int freeP,
                              MpiSettings settings, SyncDeadline around) {
        mpi.setErrorsReturn(comm);
        MpiContext ctx = new MpiContext(mpi, comm, true, args, engineKey, freeP, CrossJvmObjects.forSection(spmd), settings, around);
        return SuperstepContext.runProcess(ctx, spmd, "mpi", call);
    }

    /**
     * Collective over {@code comm}: every member must have resolved the same settings (they decide
     * which collectives a sync calls, so a difference would hang the section). One
     * {@code MPI_Allreduce} of two longs. On a difference every member frees {@code comm} and throws.
     *
     * @throws IllegalArgumentException naming {@code call} and this member's settings
     */
    static void agree(Mpi mpi, long comm, MpiSettings settings, String call) {
        if (StartupAgreement.sameEverywhere(settings.agreementText(), (in, out, words) -> mpi.allreduceLongs(in, out, words, mpi.opMax(), comm))) {
            return;
        }
        int rank = mpi.rank(comm);
        mpi.free(comm);
        throw new IllegalArgumentException(call + " at rank " + rank + ": the members of the communicator have different"
                + " engine settings (give every member the same); this member's: " + settings.agreementText());
    }
}
