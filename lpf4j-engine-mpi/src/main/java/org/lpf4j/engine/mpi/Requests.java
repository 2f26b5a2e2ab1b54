package org.lpf4j.engine.mpi;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One process's puts and gets of the current superstep, as parallel arrays (no object per
 * request). Sized by {@code resizeMessageQueue} ({@link #ensure}); {@code put}/{@code get} only
 * write into the arrays.
 */
final class Requests {
    int puts;
    int[] putPid = new int[0], putSlot = new int[0];
    /** The combining attribute's id in {@link CombinerTable} for a combining put, -1 for a plain one. */
    int[] putAttr = new int[0];
    long[] putSrcOffset = new long[0], putDstOffset = new long[0], putSize = new long[0];
    MemorySegment[] putSource = new MemorySegment[0];

    int gets;
    int[] getPid = new int[0], getSlot = new int[0];
    long[] getSrcOffset = new long[0], getDstOffset = new long[0], getSize = new long[0];
    MemorySegment[] getDestination = new MemorySegment[0];

    /** @return the number of requests queued */
    int count() { return puts + gets; }

    /**
     * Grows the arrays to hold {@code n} requests of each kind (all of them allocated before any is
     * replaced, so an {@link OutOfMemoryError} leaves the queue as it was).
     */
    void ensure(int n) {
        if (n <= putPid.length) return;
        int[] a = Arrays.copyOf(putPid, n), b = Arrays.copyOf(putSlot, n), c = Arrays.copyOf(getPid, n), d = Arrays.copyOf(getSlot, n);
        long[] e = Arrays.copyOf(putSrcOffset, n), f = Arrays.copyOf(putDstOffset, n), g = Arrays.copyOf(putSize, n);
        long[] h = Arrays.copyOf(getSrcOffset, n), i = Arrays.copyOf(getDstOffset, n), j = Arrays.copyOf(getSize, n);
        MemorySegment[] k = Arrays.copyOf(putSource, n), l = Arrays.copyOf(getDestination, n);
        int[] m = Arrays.copyOf(putAttr, n);
        putPid = a; putSlot = b; getPid = c; getSlot = d; putAttr = m;
        putSrcOffset = e; putDstOffset = f; putSize = g;
        getSrcOffset = h; getDstOffset = i; getSize = j;
        putSource = k; getDestination = l;
    }

    void addPut(MemorySegment src, long srcOffset, int dstPid, int slot, long dstOffset, long size, int attr) {
        int n = puts++;
        putAttr[n] = attr;
        putSource[n] = src;
        putSrcOffset[n] = srcOffset;
        putPid[n] = dstPid;
        putSlot[n] = slot;
        putDstOffset[n] = dstOffset;
        putSize[n] = size;
    }

    void addGet(int srcPid, int slot, long srcOffset, MemorySegment dst, long dstOffset, long size) {
        int n = gets++;
        getPid[n] = srcPid;
        getSlot[n] = slot;
        getSrcOffset[n] = srcOffset;
        getDestination[n] = dst;
        getDstOffset[n] = dstOffset;
        getSize[n] = size;
    }

    /** Forgets every request (drops the segment references so they can be collected). */
    void clear() {
        Arrays.fill(putSource, 0, puts, null);
        Arrays.fill(getDestination, 0, gets, null);
        puts = 0;
        gets = 0;
    }
}
