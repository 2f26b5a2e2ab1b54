package org.lpf4j.engine.mpi;

import org.lpf4j.Args;
import org.lpf4j.Lpf;
import org.lpf4j.superstep.NodeExchange;
import org.lpf4j.superstep.NodeRequests;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run under mpirun by {@link EngineTest}: a program that already uses MPI (it initialises it
 * itself, through the binding) hooks an LPF section over {@code MPI_COMM_WORLD}, each rank with
 * its own args (and checks the exchange as a layered engine uses it there), then over a communicator of the
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
                checkNodeExchange(ctx);
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
     * The exchange as a layered engine uses it ({@link NodeExchange}): two local processes per
     * rank (pid = 2 · rank + local), each putting 8 bytes (packed) and 20 KiB (a message of its
     * own) two pids on and getting 8 bytes from three pids on, between plain syncs of the section
     * and rings of its own puts, which must not disturb each other.
     */
    private static void checkNodeExchange(org.lpf4j.Context ctx) {
        final int t = 2, p = ctx.nprocs(), rank = ctx.pid(), all = t * p;
        final long large = 20 * 1024;
        ringOfPuts(ctx, 1);
        NodeExchange exchange = NodeExchange.of(ctx);
        SlotRegister[] registers = new SlotRegister[t];
        RequestList[] lists = new RequestList[t];
        NodeRequests requests = new NodeRequests() {
            @Override public int processes() { return t; }
            @Override public RequestList requests(int local) { return lists[local]; }
            @Override public SlotRegister register(int local) { return registers[local]; }
            @Override public int rankOf(int pid) { return pid / t; }
            @Override public int localOf(int pid) { return pid % t; }
            @Override public int pidOf(int r, int local) { return r * t + local; }
        };
        try (Arena a = Arena.ofShared()) {
            MemorySegment[] src = new MemorySegment[t], dst = new MemorySegment[t], got = new MemorySegment[t];
            for (int l = 0; l < t; l++) {
                int g = rank * t + l;
                registers[l] = new SlotRegister();
                registers[l].resize(g, 2);
                registers[l].capacity().applyAtSync();
                lists[l] = new RequestList();
                lists[l].ensure(4);
                src[l] = a.allocate(8 + large, 8);
                dst[l] = a.allocate(8 + large, 8);
                got[l] = a.allocate(8, 8);
                src[l].set(ValueLayout.JAVA_LONG, 0, 7000L + g);
                src[l].asSlice(8).fill((byte) (40 + g));
                int dstId = registers[l].registerGlobal(dst[l], 0).id(), srcId = registers[l].registerGlobal(src[l], 0).id();
                lists[l].addPut(src[l], 0, (g + 2) % all, dstId, 0, 8, null, -1);
                lists[l].addPut(src[l], 8, (g + 2) % all, dstId, 8, large, null, -1);
                lists[l].addGet((g + 3) % all, srcId, 0, got[l], 0, 8);
            }
            ctx.sync();
            if (!exchange.sync(requests)) throw new AssertionError("NodeExchange.sync: pid " + rank + " saw no requests");
            for (int l = 0; l < t; l++) {
                exchange.applyPuts(l, registers[l]);
                exchange.applyReplies(lists[l], requests);
                lists[l].clear();
            }
            for (int l = 0; l < t; l++) {
                int g = rank * t + l, from = (g - 2 + 2 * all) % all, owner = (g + 3) % all;
                long value = dst[l].get(ValueLayout.JAVA_LONG, 0), fetched = got[l].get(ValueLayout.JAVA_LONG, 0);
                byte fill = dst[l].get(ValueLayout.JAVA_BYTE, 8 + large - 1);
                if (value != 7000L + from || fill != (byte) (40 + from) || fetched != 7000L + owner) {
                    throw new AssertionError("NodeExchange: pid " + g + " got " + value + " / " + fill + " / " + fetched
                            + ", expected " + (7000L + from) + " / " + (byte) (40 + from) + " / " + (7000L + owner));
                }
            }
            if (exchange.sync(requests)) throw new AssertionError("NodeExchange.sync: pid " + rank + " moved requests nobody queued");
        }
        ringOfPuts(ctx, 2);
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
