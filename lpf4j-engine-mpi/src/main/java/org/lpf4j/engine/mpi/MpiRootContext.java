package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ForwardingContext;
import org.lpf4j.superstep.WholeJobProbe;

import java.util.Objects;

/**
 * The root context on rank 0: a valid one-process context (over {@code MPI_COMM_SELF}) whose
 * {@code exec(p)} runs on the first {@code min(p, size)} ranks of the job and whose
 * {@code probe()} reports the whole job (p = freeP = the number of ranks).
 */
final class MpiRootContext extends ForwardingContext {
    private final MpiRuntime runtime;

    MpiRootContext(MpiRuntime runtime) {
        super(self(runtime));
        this.runtime = runtime;
    }

    private static Context self(MpiRuntime runtime) {
        Mpi mpi = runtime.mpi;
        long comm = mpi.dup(mpi.commSelf());
        mpi.setErrorsReturn(comm);
        return new MpiContext(mpi, comm, Args.NONE, "mpi/self", 1, CrossJvmObjects.forCurrentThread(), runtime.settings);
    }

    @Override
    public void exec(int p, Spmd spmd, Args args) {
        Objects.requireNonNull(spmd, "exec: spmd");
        Objects.requireNonNull(args, "exec: args");
        if (p < 1) throw new IllegalArgumentException("exec(p=" + p + ") at the root: p must be at least 1");
        runtime.exec(p, spmd, args);
    }

    @Override
    public Machine probe() { return WholeJobProbe.probe("mpi", runtime.size, (n, spmd) -> runtime.exec(n, spmd, Args.NONE)); }

    @Override
    public String toString() { return "MpiRootContext[rank 0 of " + runtime.size + "]"; }
}
