package org.lpf4j.spark.examples;

import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.coll.Collectives;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A personalised all-to-all of long arrays of any lengths for the examples, on the collectives
 * library: an {@link Collectives#alltoall} of the lengths, then {@link Collectives#alltoallv} of
 * the parts. Made once per section (collective: it creates a collectives object and registers
 * the lengths' arrays, usable after the caller's next sync); {@link #exchange} as often as
 * needed. Reserve {@link #needs(int)} with the program's other needs before making it.
 */
public final class AllToAll implements AutoCloseable {
    private final Context ctx;
    private final Collectives coll;
    /** Lengths (in longs) this process sends each process, and receives from each. */
    private final long[] sendLengths, recvLengths;
    /** alltoallv's arguments, in bytes. */
    private final long[] sendCounts, sendOffsets, recvCounts, recvOffsets;
    private final Memslot sendLengthsSlot, recvLengthsSlot;

    /**
     * What an object needs at p processes: its collectives object (one call per superstep, blocks
     * of 8 bytes), the two lengths' slots, and the send and receive slots of an exchange.
     *
     * @param p the processes
     * @return the capacity
     */
    public static Capacity needs(int p) { return Capacity.of(4, 0).plus(Collectives.needs(p, 1, 0, 8)); }

    /**
     * Collective; usable after the caller's next sync.
     *
     * @param ctx the context, with {@link #needs(int)} reserved
     */
    public AllToAll(Context ctx) {
        this.ctx = ctx;
        int p = ctx.nprocs();
        coll = Collectives.init(ctx, 1, 0, 8);
        sendLengths = new long[p];
        recvLengths = new long[p];
        sendCounts = new long[p];
        sendOffsets = new long[p];
        recvCounts = new long[p];
        recvOffsets = new long[p];
        sendLengthsSlot = ctx.registerGlobal(MemorySegment.ofArray(sendLengths));
        recvLengthsSlot = ctx.registerGlobal(MemorySegment.ofArray(recvLengths));
    }

    /**
     * Collective; three supersteps (the lengths, with the send array's registration; alltoallv's
     * own for the parts' offsets; the parts).
     *
     * @param outgoing {@code outgoing[q]}: what this process sends process q (its own part too)
     * @return {@code incoming[s]}: what process s sent this one
     */
    public long[][] exchange(long[][] outgoing) {
        int p = ctx.nprocs(), me = ctx.pid();
        if (outgoing.length != p) {
            throw new IllegalArgumentException("AllToAll.exchange at pid " + me + ": " + outgoing.length + " parts for " + p + " processes");
        }
        try (Arena arena = Arena.ofShared()) {
            long total = 0;
            for (int q = 0; q < p; q++) {
                sendLengths[q] = outgoing[q].length;
                sendOffsets[q] = 8 * total;
                sendCounts[q] = 8L * outgoing[q].length;
                total += outgoing[q].length;
            }
            MemorySegment send = arena.allocate(Math.max(8, 8 * total), 8);
            for (int q = 0; q < p; q++) MemorySegment.copy(outgoing[q], 0, send, ValueLayout.JAVA_LONG, sendOffsets[q], outgoing[q].length);
            Memslot sendSlot = ctx.registerGlobal(send);
            recvLengths[me] = sendLengths[me];
            coll.alltoall(sendLengthsSlot, recvLengthsSlot, 8);
            ctx.sync();
            long incoming = 0;
            for (int s = 0; s < p; s++) {
                recvOffsets[s] = 8 * incoming;
                recvCounts[s] = 8 * recvLengths[s];
                incoming += recvLengths[s];
            }
            MemorySegment receive = arena.allocate(Math.max(8, 8 * incoming), 8);
            Memslot receiveSlot = ctx.registerLocal(receive);
            coll.alltoallv(sendSlot, sendCounts, sendOffsets, receiveSlot, recvCounts, recvOffsets);
            ctx.sync();
            long[][] result = new long[p][];
            for (int s = 0; s < p; s++) {
                result[s] = new long[(int) recvLengths[s]];
                MemorySegment.copy(receive, ValueLayout.JAVA_LONG, recvOffsets[s], result[s], 0, result[s].length);
            }
            ctx.deregister(receiveSlot);
            ctx.deregister(sendSlot);
            return result;
        }
    }

    /** Collective: deregisters the lengths' slots and closes the collectives object (sync after the last exchange: it did). */
    @Override
    public void close() {
        ctx.deregister(recvLengthsSlot);
        ctx.deregister(sendLengthsSlot);
        coll.close();
    }
}
