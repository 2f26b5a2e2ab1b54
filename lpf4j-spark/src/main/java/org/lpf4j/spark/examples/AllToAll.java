package org.lpf4j.spark.examples;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A personalised all-to-all of long arrays of any lengths ({@code MPI_Alltoallv}) on the LPF
 * core API, for the examples' set-up phases: every process puts each destination the length and
 * offset of its part, then every destination gets its parts. Collective; three supersteps.
 * Needs {@value #REGISTER_SLOTS} free register slots and {@link #queueEntries(int)} queue entries.
 */
public final class AllToAll {
    private AllToAll() {}

    /** Register slots a call needs. */
    public static final int REGISTER_SLOTS = 4;

    /** @return queue entries a call needs, at p processes */
    public static long queueEntries(int p) { return 2L * p; }

    /**
     * @param ctx      the context
     * @param outgoing {@code outgoing[q]}: what this process sends process q (its own part too)
     * @return {@code incoming[s]}: what process s sent this one
     */
    public static long[][] exchange(Context ctx, long[][] outgoing) {
        int p = ctx.nprocs(), me = ctx.pid();
        if (outgoing.length != p) {
            throw new IllegalArgumentException("AllToAll.exchange at pid " + me + ": " + outgoing.length + " parts for " + p + " processes");
        }
        try (Arena arena = Arena.ofShared()) {
            long total = 0;
            for (long[] part : outgoing) total += part.length;
            MemorySegment send = arena.allocate(Math.max(8, 8 * total), 8);
            MemorySegment info = arena.allocate(16L * p, 8), mine = arena.allocate(16L * p, 8);
            long offset = 0;
            for (int q = 0; q < p; q++) {
                MemorySegment.copy(outgoing[q], 0, send, ValueLayout.JAVA_LONG, 8 * offset, outgoing[q].length);
                mine.set(ValueLayout.JAVA_LONG, 16L * q, outgoing[q].length);
                mine.set(ValueLayout.JAVA_LONG, 16L * q + 8, offset);
                offset += outgoing[q].length;
            }
            Memslot sendSlot = ctx.registerGlobal(send), infoSlot = ctx.registerGlobal(info), mineSlot = ctx.registerLocal(mine);
            ctx.sync();
            for (int q = 0; q < p; q++) ctx.put(mineSlot, 16L * q, q, infoSlot, 16L * me, 16);
            ctx.sync();
            long incoming = 0;
            for (int s = 0; s < p; s++) incoming += info.get(ValueLayout.JAVA_LONG, 16L * s);
            MemorySegment receive = arena.allocate(Math.max(8, 8 * incoming), 8);
            Memslot receiveSlot = ctx.registerLocal(receive);
            long at = 0;
            for (int s = 0; s < p; s++) {
                long length = info.get(ValueLayout.JAVA_LONG, 16L * s), from = info.get(ValueLayout.JAVA_LONG, 16L * s + 8);
                if (length > 0) ctx.get(s, sendSlot, 8 * from, receiveSlot, 8 * at, 8 * length);
                at += length;
            }
            ctx.sync();
            long[][] result = new long[p][];
            at = 0;
            for (int s = 0; s < p; s++) {
                int length = (int) info.get(ValueLayout.JAVA_LONG, 16L * s);
                result[s] = new long[length];
                MemorySegment.copy(receive, ValueLayout.JAVA_LONG, 8 * at, result[s], 0, length);
                at += length;
            }
            for (Memslot slot : new Memslot[]{receiveSlot, mineSlot, infoSlot, sendSlot}) ctx.deregister(slot);
            return result;
        }
    }
}
