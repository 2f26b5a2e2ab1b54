package org.lpf4j.superstep;

import org.lpf4j.MsgAttr;

import java.util.Arrays;

/** The puts one local process must write in a sync, in apply order, as parallel arrays: grown by doubling, kept from sync to sync ({@link Delivery}). */
final class Arrivals {
    /** Where the payload is: in the stream of {@link #fromRank}, or in the staging buffer if that is -1. */
    long[] payload = new long[16], dstOffset = new long[16], size = new long[16];
    int[] slot = new int[16], fromRank = new int[16];
    MsgAttr[] attr = new MsgAttr[16];
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
        }
        return count++;
    }
}
