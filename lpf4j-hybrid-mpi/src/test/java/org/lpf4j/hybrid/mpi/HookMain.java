package org.lpf4j.hybrid.mpi;

import org.lpf4j.Args;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;
import org.lpf4j.engine.mpi.Mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run under mpirun by {@link HookTest}: a program that uses MPI itself (through the MPI engine's
 * binding: it initialises MPI, reduces over {@code MPI_COMM_WORLD} before and after) hooks hybrid
 * sections over its communicator: 2 threads per rank with each rank's own args (a ring of puts
 * over all processes, and the first process of each node passing its input to the next node's),
 * then a one-node section over a communicator of rank 0 alone, then a call whose ranks disagree on
 * the thread count (refused on every rank, MPI still usable). Prints {@code HYBRID HOOK OK <rank>}.
 */
public final class HookMain {
    private HookMain() {}

    static final int T = 2;
    /** MPI_UNDEFINED, the same in Open MPI and MPICH. */
    private static final int MPI_UNDEFINED = -32766;

    public static void main(String[] args) {
        Mpi mpi = Mpi.load(System.getProperty("lpf.engine.mpi.library"));
        mpi.initThread(Mpi.THREAD_SERIALIZED);
        long world = mpi.commWorld();
        int rank = mpi.rank(world), size = mpi.size(world);
        expectSum(mpi, world, size, "before");
        try (Arena a = Arena.ofShared()) {
            MemorySegment in = a.allocate(8), out = a.allocate(8);
            in.set(ValueLayout.JAVA_LONG, 0, 100 + rank);
            Lpf.hook(MpiHybrid.init(world, T), ctx -> {
                int p = ctx.nprocs(), s = ctx.pid();
                if (p != size * T) throw new AssertionError("nprocs " + p + ", expected " + size * T);
                boolean first = s % T == 0;
                if (first != (ctx.args().input().byteSize() == 8)) throw new AssertionError("pid " + s + ": input " + ctx.args().input());
                if (first && s / T != rank) throw new AssertionError("pid " + s + " runs on rank " + rank);
                ctx.resizeMemoryRegister(2);
                ctx.resizeMessageQueue(4);
                ctx.sync();
                MemorySegment x = Arena.ofAuto().allocate(16, 8);
                x.set(ValueLayout.JAVA_LONG, 0, 1000 + s);
                if (first) x.set(ValueLayout.JAVA_LONG, 8, ctx.args().input().get(ValueLayout.JAVA_LONG, 0));
                Memslot xs = ctx.registerGlobal(x);
                ctx.sync();
                ctx.put(xs, 0, (s + 1) % p, xs, 0, 8);
                if (first) ctx.put(xs, 8, (s + T) % p, xs, 8, 8);
                ctx.sync();
                int left = (s + p - 1) % p;
                if (x.get(ValueLayout.JAVA_LONG, 0) != 1000 + left) throw new AssertionError("pid " + s + " got " + x.get(ValueLayout.JAVA_LONG, 0));
                if (first) ctx.args().output().set(ValueLayout.JAVA_LONG, 0, x.get(ValueLayout.JAVA_LONG, 8));
                ctx.deregister(xs);
            }, Args.of(in, out));
            long expect = 100 + (rank + size - 1) % size;
            if (out.get(ValueLayout.JAVA_LONG, 0) != expect) throw new AssertionError("rank " + rank + " output " + out.get(ValueLayout.JAVA_LONG, 0));
        }
        expectSum(mpi, world, size, "between");
        long alone = mpi.split(world, rank == 0 ? 0 : MPI_UNDEFINED, rank);
        if (rank == 0) {
            Lpf.hook(MpiHybrid.init(alone, 3), ctx -> {
                if (ctx.nprocs() != 3) throw new AssertionError("one node of 3: nprocs " + ctx.nprocs());
                ctx.sync();
            }, Args.NONE);
            mpi.free(alone);
        }
        try {
            Lpf.hook(MpiHybrid.init(world, rank == 0 ? 2 : 3), ctx -> { throw new AssertionError("must not start"); }, Args.NONE);
            throw new AssertionError("rank " + rank + ": disagreeing thread counts were accepted");
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().contains("every rank must give the same threadsPerNode")) throw e;
        }
        expectSum(mpi, world, size, "after");
        mpi.barrier(world);
        System.out.println("HYBRID HOOK OK " + rank);
        mpi.finish();
    }

    /** The program's own MPI: an allreduce of the ranks over {@code comm}. */
    private static void expectSum(Mpi mpi, long comm, int size, String when) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment in = a.allocate(8, 8), out = a.allocate(8, 8);
            in.set(ValueLayout.JAVA_LONG, 0, mpi.rank(comm));
            mpi.allreduceLongs(in, out, 1, mpi.opSum(), comm);
            long sum = (long) size * (size - 1) / 2;
            if (out.get(ValueLayout.JAVA_LONG, 0) != sum) throw new AssertionError(when + " the hook: allreduce " + out.get(ValueLayout.JAVA_LONG, 0));
        }
    }
}
