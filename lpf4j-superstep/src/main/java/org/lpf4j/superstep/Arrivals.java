package org.lpf4j.superstep;

import org.lpf4j.MsgAttr;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/** The puts one local process must write in a sync, in apply order, as parallel arrays: grown by doubling, kept from sync to sync ({@link Delivery}). */
final class Arrivals {
    /** {@link #fromRank} of a payload in the staging buffer, and of one read from its {@link #source} ({@link LocalPuts}). */
    static final int STAGED = -1, FROM_SOURCE = -2;
    /**
     * Where the payload is: in the stream of {@link #fromRank}, in the staging buffer if that is
     * {@link #STAGED}, at this offset of {@link #source} if it is {@link #FROM_SOURCE}.
     */
    long[] payload = new long[16], dstOffset = new long[16], size = new long[16];
    int[] slot = new int[16], fromRank = new int[16];
    MsgAttr[] attr = new MsgAttr[16];
    /** The memory a {@link #FROM_SOURCE} put reads (null: it was freed, the put writes zeros); null otherwise. */
    MemorySegment[] source = new MemorySegment[16];
    int count;

    int add() {
        if (count == payload.length) {
            int c = 2 * count;
            payload = Arrays.copyOf(payload, c);
            dstOffset = Arrays.copyOf(dstOffset, c);
            size = Arrays.copyOf(size, c);
            slot = Arrays.copyOf(slot, c);
            fromRank = Arrays.copyOf(fromRank, c);
            attr = Arrays.copyOf(attr, c);
            source = Arrays.copyOf(source, c);
        }
        return count++;
    }
}
