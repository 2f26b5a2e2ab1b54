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

    /**
     * {@link MpiEngine#carryWords} and {@link MpiEngine#syncCarrying}: the OR of every process's
     * words in place, a wrongly sized segment refused, and plain syncs (carrying zeros) before and
     * after; the section then ends with the words still carried.
     */
    private static void checkSyncCarrying(org.lpf4j.Context ctx) {
        int p = ctx.nprocs(), s = ctx.pid();
        MpiEngine.carryWords(ctx, p + 1);
        ctx.sync();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment words = a.allocate(8L * (p + 1), 8);
            words.setAtIndex(ValueLayout.JAVA_LONG, s, 1L << 40 | s); // own row only: the OR is everyone's value
            words.setAtIndex(ValueLayout.JAVA_LONG, p, 1L << s);      // a shared word: the OR of all bits
            MpiEngine.syncCarrying(ctx, words);
            for (int q = 0; q < p; q++) {
                if (words.getAtIndex(ValueLayout.JAVA_LONG, q) != (1L << 40 | q)) {
                    throw new AssertionError("syncCarrying: pid " + s + " word " + q + " = " + words.getAtIndex(ValueLayout.JAVA_LONG, q));
                }
            }
            if (words.getAtIndex(ValueLayout.JAVA_LONG, p) != (1L << p) - 1) {
                throw new AssertionError("syncCarrying: pid " + s + " shared word " + Long.toBinaryString(words.getAtIndex(ValueLayout.JAVA_LONG, p)));
            }
            long[] heap = new long[p + 1];
            if (s == p - 1) heap[p] = 5;
            MemorySegment onHeap = MemorySegment.ofArray(heap);
            MpiEngine.syncCarrying(ctx, onHeap);
            if (heap[p] != 5 || heap[0] != 0) throw new AssertionError("syncCarrying on the heap: pid " + s + " got " + java.util.Arrays.toString(heap));
            try {
                MpiEngine.syncCarrying(ctx, a.allocate(8L * p));
                throw new AssertionError("syncCarrying accepted " + 8L * p + " bytes while " + (p + 1) + " longs are carried");
            } catch (IllegalArgumentException expected) {
                if (!expected.getMessage().contains((p + 1) + " longs")) throw new AssertionError("message: " + expected.getMessage());
            }
        }
        long before = ctx.superstep();
        ctx.sync();
        if (ctx.superstep() != before + 1) throw new AssertionError("superstep " + ctx.superstep() + " after " + before);
    }
}
