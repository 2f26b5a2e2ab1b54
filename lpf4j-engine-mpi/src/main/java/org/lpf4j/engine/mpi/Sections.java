package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.FatalException;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ProbeHarness;
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
     * @return the section's failure (with the causes on pid 0), or null
     */
    static FatalException run(Mpi mpi, long comm, Spmd spmd, Args args, String engineKey, String call, int freeP,
                              MpiSettings settings) {
        mpi.setErrorsReturn(comm);
        MpiContext ctx = new MpiContext(mpi, comm, args, engineKey, freeP, CrossJvmObjects.forSection(spmd), settings);
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
        long h = settings.agreementText().hashCode();
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment in = a.allocate(16, 8), out = a.allocate(16, 8);
            in.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, h);
            in.set(java.lang.foreign.ValueLayout.JAVA_LONG, 8, -h);
            mpi.allreduceLongs(in, out, 2, mpi.opMax(), comm);
            long max = out.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0), min = -out.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8);
            if (max != min) {
                int rank = mpi.rank(comm);
                mpi.free(comm);
                throw new IllegalArgumentException(call + " at rank " + rank + ": the members of the communicator have different"
                        + " engine settings (give every member the same); this member's: " + settings.agreementText());
            }
        }
    }

    /**
     * g and l, collectively over a duplicate of {@code comm}: pid 0's disk cache when it has the
     * figures of this placement (it decides for everyone and sends them), else measured; every
     * member gets pid 0's figures ({@link ProbeHarness#cachedOrMeasured}).
     */
    static ProbeHarness.Fit measure(Mpi mpi, long comm, String engineKey, MpiSettings settings) {
        ProbeHarness.Fit[] result = new ProbeHarness.Fit[1];
        FatalException f = run(mpi, mpi.dup(comm),
                ctx -> result[0] = ProbeHarness.cachedOrMeasured(ctx, engineKey, settings.probeNanos()),
                org.lpf4j.Args.NONE, engineKey, "probe", 1, settings);
        if (f != null) throw f;
        return result[0];
    }

    /** @return the processors pid {@code i} of a section of {@code n} over a job of {@code size} ranks gets */
    static int share(int size, int n, int i) {
        return size / n + (i < size % n ? 1 : 0);
    }

    /**
     * A nested {@code exec} inside a section: it runs in this process's JVM, on the threads engine
     * when it is installed and {@code p > 1} (as many threads as this process has processors), else
     * as a one-process MPI section over {@code MPI_COMM_SELF}.
     */
    static void nested(Mpi mpi, int p, Spmd spmd, Args args, String engineKey, MpiSettings settings) {
        if (p > 1) {
            Context threads = null;
            try {
                threads = Lpf.root("threads");
            } catch (RuntimeException e) {
                // not installed or cannot run: one process below
            }
            if (threads != null) {
                threads.exec(p, spmd, args);
                return;
            }
        }
        FatalException f = run(mpi, mpi.dup(mpi.commSelf()), spmd, args, engineKey + "/self", "exec(p=" + p + ")", 1, settings);
        if (f != null) throw f;
    }
}
