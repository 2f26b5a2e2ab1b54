package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Lpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run under mpirun by {@link EngineTest}: a program that already uses MPI (it initialises it
 * itself, through the binding) hooks an LPF section over {@code MPI_COMM_WORLD}, each rank with
 * its own args (and checks {@link MpiEngine#syncCarrying} there), then over a communicator of the
 * even ranks, then finalizes MPI itself.
 */
public final class HookMain {
    private HookMain() {}

    public static void main(String[] args) {
        Mpi mpi = Mpi.load(System.getProperty("lpf.engine.mpi.library"));
        mpi.initThread(Mpi.THREAD_SERIALIZED);
        long world = mpi.commWorld();
        int rank = mpi.rank(world), size = mpi.size(world);
        try (Arena a = Arena.ofShared()) {
            MemorySegment in = a.allocate(8), out = a.allocate(8);
            in.set(ValueLayout.JAVA_LONG, 0, 100 + rank);
            Lpf.hook(MpiEngine.init(world), ctx -> {
                if (ctx.pid() != rank || ctx.nprocs() != size) throw new AssertionError("pid/nprocs " + ctx.pid() + "/" + ctx.nprocs());
                InputRing.run(ctx);
                checkSyncCarrying(ctx);
            }, Args.of(in, out));
            long expect = 100 + (rank + size - 1) % size;
            if (out.get(ValueLayout.JAVA_LONG, 0) != expect) throw new AssertionError("rank " + rank + " got " + out.get(ValueLayout.JAVA_LONG, 0));
            long evens = mpi.split(world, rank % 2 == 0 ? 0 : MpiRuntime.UNDEFINED, rank);
            if (rank % 2 == 0) {
                Lpf.hook(MpiEngine.init(evens), ctx -> {
                    if (ctx.pid() != rank / 2 || ctx.nprocs() != (size + 1) / 2) throw new AssertionError("evens pid " + ctx.pid());
                    ctx.sync();
                }, Args.NONE);
                mpi.free(evens);
            }
        }
        mpi.barrier(world);
        System.out.println("HOOK OK " + rank);
        mpi.finish();
    }

    /** {@link MpiEngine#syncCarrying}: the OR of every process's bits, refused bits, and a plain sync after it. */
    private static void checkSyncCarrying(org.lpf4j.Context ctx) {
        long all = 0;
        for (int q = 0; q < ctx.nprocs(); q++) all |= 1L << (q + 40);
        long got = MpiEngine.syncCarrying(ctx, 1L << (ctx.pid() + 40));
        if (got != all) throw new AssertionError("syncCarrying: pid " + ctx.pid() + " got " + Long.toHexString(got) + ", expected " + Long.toHexString(all));
        long onlyLast = MpiEngine.syncCarrying(ctx, ctx.pid() == ctx.nprocs() - 1 ? 5 : 0);
        if (onlyLast != 5) throw new AssertionError("syncCarrying: pid " + ctx.pid() + " got " + onlyLast + ", expected 5 from the last pid");
        for (long bad : new long[] {-1, 1L << 47}) {
            try {
                MpiEngine.syncCarrying(ctx, bad);
                throw new AssertionError("syncCarrying accepted bits " + bad);
            } catch (IllegalArgumentException expected) {
                if (!expected.getMessage().contains(Long.toString(bad))) throw new AssertionError("message: " + expected.getMessage());
            }
        }
        long before = ctx.superstep();
        ctx.sync();
        if (ctx.superstep() != before + 1) throw new AssertionError("superstep " + ctx.superstep() + " after " + before);
    }
}
