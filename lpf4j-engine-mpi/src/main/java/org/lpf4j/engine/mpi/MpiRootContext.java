package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Machine;
import org.lpf4j.Spmd;
import org.lpf4j.spi.kit.CrossJvmObjects;
import org.lpf4j.spi.kit.ForwardingContext;

import java.util.Objects;

/**
 * The root context on rank 0: a valid one-process context (over {@code MPI_COMM_SELF}) whose
 * {@code exec(p)} runs on the first {@code min(p, size)} ranks of the job and whose
 * {@code probe()} reports the whole job (p = freeP = the number of ranks).
 */
final class MpiRootContext extends ForwardingContext {
    private final MpiRuntime runtime;
    private static volatile Machine machine;

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
    public Machine probe() {
        Machine m = machine;
        if (m == null) {
            runtime.exec(runtime.size, new ProbeSpmd(), Args.NONE);
            Machine all = ProbeSpmd.last;
            m = new Machine(runtime.size, runtime.size, all.messageSizes(), gs(all), ls(all));
            machine = m;
        }
        return m;
    }

    private static double[] gs(Machine m) {
        long[] sizes = m.messageSizes();
        double[] g = new double[sizes.length];
        for (int i = 0; i < sizes.length; i++) g[i] = m.g(sizes[i]);
        return g;
    }

    private static double[] ls(Machine m) {
        long[] sizes = m.messageSizes();
        double[] l = new double[sizes.length];
        for (int i = 0; i < sizes.length; i++) l[i] = m.l(sizes[i]);
        return l;
    }

    /** Measures on every rank; pid 0 keeps the result. */
    static final class ProbeSpmd implements Spmd {
        private static final long serialVersionUID = 1L;
        static volatile Machine last;

        @Override
        public void run(Context ctx) {
            Machine m = ctx.probe();
            if (ctx.pid() == 0) last = m;
        }
    }

    @Override
    public String toString() { return "MpiRootContext[rank 0 of " + runtime.size + "]"; }
}
