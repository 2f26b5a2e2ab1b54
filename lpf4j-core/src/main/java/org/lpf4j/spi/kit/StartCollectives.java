package org.lpf4j.spi.kit;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * For engines only: the two small collectives an engine or the kit needs at the start of a
 * section, written once over the public {@link Context} so that they run on any engine — pid 0's
 * bytes to every process ({@link #fromPid0}: probe figures) and every process's bytes to every
 * process ({@link #allgather}: the hybrid engine's node facts, the module agreement). Not the
 * collectives library: no algorithm choice, no reuse of buffers; for a handful of calls per
 * section, on contexts with nothing registered or queued.
 *
 * <p>Both are collective (every process of {@code ctx} calls them, in the same order with its
 * other syncs), set the context's capacities to what they need (they do not restore them) and
 * leave nothing registered. Each allocates its buffers in a shared {@link Arena} closed before it
 * returns.
 */
public final class StartCollectives {
    private StartCollectives() {}

    /**
     * Pid 0's bytes at every process, in three supersteps: its length, then the bytes, each put by
     * pid 0 to every other process (the second one only when there are bytes). Sets the
     * capacities to 2 slots and p requests. Cost: 3 syncs, p − 1 puts of 8 bytes and p − 1 puts of
     * the bytes, all from pid 0.
     *
     * @param ctx  a context with nothing registered or queued
     * @param mine pid 0's bytes (ignored elsewhere; may be null there)
     * @return pid 0's bytes (on pid 0 the array it passed)
     */
    public static byte[] fromPid0(Context ctx, byte[] mine) {
        int p = ctx.nprocs(), pid = ctx.pid();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment header = arena.allocate(8, 8);
            header.set(ValueLayout.JAVA_LONG, 0, pid == 0 ? mine.length : 0);
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(p);
            ctx.sync();
            Memslot headerSlot = ctx.registerGlobal(header);
            ctx.sync();
            if (pid == 0) for (int q = 1; q < p; q++) ctx.put(headerSlot, 0, q, headerSlot, 0, 8);
            ctx.sync();
            int length = (int) header.get(ValueLayout.JAVA_LONG, 0);
            byte[] result = new byte[0];
            if (length > 0) {
                MemorySegment data = arena.allocate(length);
                if (pid == 0) MemorySegment.copy(MemorySegment.ofArray(mine), 0, data, 0, length);
                Memslot dataSlot = ctx.registerGlobal(data);
                ctx.sync();
                if (pid == 0) for (int q = 1; q < p; q++) ctx.put(dataSlot, 0, q, dataSlot, 0, length);
                ctx.sync();
                ctx.deregister(dataSlot);
                result = pid == 0 ? mine : data.toArray(ValueLayout.JAVA_BYTE);
            }
            ctx.deregister(headerSlot);
            return result;
        }
    }

    /**
     * Every process's bytes at every process, in five supersteps: the capacities, the lengths
     * (each process puts its own to every other), then the bytes, packed in pid order (three
     * supersteps when every process's bytes are empty). Sets the capacities to 2 slots and 2p
     * requests. Cost: each process puts p − 1 times 8 bytes and p − 1 times its bytes, and
     * receives everyone's.
     *
     * @param ctx  a context with nothing registered or queued
     * @param mine this process's bytes, not null (may be empty)
     * @return by pid, each process's bytes (index {@code ctx.pid()} holds a copy of {@code mine})
     */
    public static byte[][] allgather(Context ctx, byte[] mine) {
        int p = ctx.nprocs(), s = ctx.pid();
        ctx.resizeMemoryRegister(2);
        ctx.resizeMessageQueue(2L * p);
        ctx.sync();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment lengths = arena.allocate(8L * p, 8);
            lengths.setAtIndex(ValueLayout.JAVA_LONG, s, mine.length);
            Memslot lengthsSlot = ctx.registerGlobal(lengths);
            ctx.sync();
            for (int q = 0; q < p; q++) if (q != s) ctx.put(lengthsSlot, 8L * s, q, lengthsSlot, 8L * s, 8);
            ctx.sync();
            ctx.deregister(lengthsSlot);
            long[] offsets = new long[p + 1];
            for (int q = 0; q < p; q++) offsets[q + 1] = offsets[q] + lengths.getAtIndex(ValueLayout.JAVA_LONG, q);
            byte[][] all = new byte[p][];
            if (offsets[p] == 0) {
                for (int q = 0; q < p; q++) all[q] = new byte[0];
                return all;
            }
            MemorySegment data = arena.allocate(offsets[p]);
            MemorySegment.copy(MemorySegment.ofArray(mine), 0, data, offsets[s], mine.length);
            Memslot dataSlot = ctx.registerGlobal(data);
            ctx.sync();
            if (mine.length > 0) {
                for (int q = 0; q < p; q++) if (q != s) ctx.put(dataSlot, offsets[s], q, dataSlot, offsets[s], mine.length);
            }
            ctx.sync();
            ctx.deregister(dataSlot);
            for (int q = 0; q < p; q++) all[q] = data.asSlice(offsets[q], offsets[q + 1] - offsets[q]).toArray(ValueLayout.JAVA_BYTE);
            return all;
        }
    }
}
