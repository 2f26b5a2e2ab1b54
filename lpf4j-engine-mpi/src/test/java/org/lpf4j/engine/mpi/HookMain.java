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
        ringOfPuts(ctx, 1); // the counts travel in the sync's allreduce (p <= countsInRoundUpTo)
        MpiEngine.carryWords(ctx, p + 1);
        ringOfPuts(ctx, 2); // carried words: the counts take an alltoall of their own
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
        long[] ones = new long[p + 1];
        java.util.Arrays.fill(ones, -1L);
        MpiEngine.syncCarrying(ctx, MemorySegment.ofArray(ones)); // leaves all-ones in the round's buffer
        MpiEngine.carryWords(ctx, 0);
        ringOfPuts(ctx, 3); // back to counts in the allreduce: what earlier rounds left must not count
        MpiEngine.carryWords(ctx, p + 1); // the section ends while words are carried
    }

    /**
     * Each process puts 8 bytes (packed) and 20 KiB (a message of its own) to the next pid, twice
     * in one superstep and once in the next, and checks what it got.
     */
    private static void ringOfPuts(org.lpf4j.Context ctx, int round) {
        int p = ctx.nprocs(), s = ctx.pid(), from = (s + p - 1) % p;
        long large = 20 * 1024;
        try (Arena a = Arena.ofShared()) {
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(2L * p + 2);
            ctx.sync();
            MemorySegment src = a.allocate(8 + large, 8), dst = a.allocate(8 + large, 8);
            src.set(ValueLayout.JAVA_LONG, 0, 1000L * round + s);
            src.asSlice(8).fill((byte) (round * 16 + s));
            var srcSlot = ctx.registerGlobal(src);
            var dstSlot = ctx.registerGlobal(dst);
            ctx.sync();
            ctx.put(srcSlot, 0, (s + 1) % p, dstSlot, 0, 8);
            ctx.put(srcSlot, 8, (s + 1) % p, dstSlot, 8, large);
            ctx.sync();
            long got = dst.get(ValueLayout.JAVA_LONG, 0);
            byte fill = dst.get(ValueLayout.JAVA_BYTE, 8 + large - 1);
            if (got != 1000L * round + from || fill != (byte) (round * 16 + from)) {
                throw new AssertionError("ring of puts " + round + ": pid " + s + " got " + got + " / " + fill + " from pid " + from);
            }
            ctx.deregister(srcSlot);
            ctx.deregister(dstSlot);
            ctx.sync();
        }
    }
}
