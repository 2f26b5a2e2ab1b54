package org.lpf4j.spi.kit;

import org.lpf4j.MsgAttr;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One process's puts and gets of a superstep as parallel arrays, for engines that ship requests
 * to other processes at the sync (the MPI engine's queue, the hybrid engine's requests for other
 * nodes). Engines only.
 *
 * <p>The arrays are read and written directly on the engines' hot paths; entries
 * {@code [0, puts)} and {@code [0, gets)} are valid. Besides the request itself each put carries
 * its combining attribute ({@code null} for a plain put) and an {@code int} the engine defines
 * ({@link #putTag}, e.g. an interned attribute id), and each get a {@code long} the engine defines
 * ({@link #getTag}, e.g. where its reply landed).
 *
 * <p>Costs: {@link #addPut}/{@link #addGet} write one slot of each array and allocate nothing;
 * {@link #ensure} (from {@code resizeMessageQueue}) copies every array; {@link #clear} nulls the
 * segment and attribute references of the used entries so they can be collected.
 */
public final class RequestList {
    public int puts, gets;
    public int[] putPid = new int[0], putSlot = new int[0], putTag = new int[0];
    public long[] putSrcOffset = new long[0], putDstOffset = new long[0], putSize = new long[0];
    public MemorySegment[] putSource = new MemorySegment[0];
    /** A combining put's attribute, {@code null} for a plain put. */
    public MsgAttr[] putAttr = new MsgAttr[0];
    public int[] getPid = new int[0], getSlot = new int[0];
    public long[] getSrcOffset = new long[0], getDstOffset = new long[0], getSize = new long[0], getTag = new long[0];
    public MemorySegment[] getDestination = new MemorySegment[0];

    /** @return the number of requests queued */
    public int count() { return puts + gets; }

    /**
     * Makes room for {@code n} puts and {@code n} gets. Every new array is allocated before any
     * replaces the old one, so an {@link OutOfMemoryError} leaves the list as it was.
     */
    public void ensure(int n) {
        if (n <= putPid.length) return;
        int[] pp = Arrays.copyOf(putPid, n), ps = Arrays.copyOf(putSlot, n), pt = Arrays.copyOf(putTag, n);
        long[] pso = Arrays.copyOf(putSrcOffset, n), pdo = Arrays.copyOf(putDstOffset, n), pz = Arrays.copyOf(putSize, n);
        MemorySegment[] src = Arrays.copyOf(putSource, n);
        MsgAttr[] attr = Arrays.copyOf(putAttr, n);
        int[] gp = Arrays.copyOf(getPid, n), gs = Arrays.copyOf(getSlot, n);
        long[] gso = Arrays.copyOf(getSrcOffset, n), gdo = Arrays.copyOf(getDstOffset, n), gz = Arrays.copyOf(getSize, n);
        long[] gt = Arrays.copyOf(getTag, n);
        MemorySegment[] dst = Arrays.copyOf(getDestination, n);
        putPid = pp; putSlot = ps; putTag = pt; putSrcOffset = pso; putDstOffset = pdo; putSize = pz;
        putSource = src; putAttr = attr;
        getPid = gp; getSlot = gs; getSrcOffset = gso; getDstOffset = gdo; getSize = gz; getTag = gt;
        getDestination = dst;
    }

    /**
     * Queues a put (room was made by {@link #ensure}).
     *
     * @param attr the combining attribute, or {@link MsgAttr#DEFAULT} or {@code null} for a plain put
     * @param tag  the engine's own value for this put
     */
    public void addPut(MemorySegment src, long srcOffset, int dstPid, int slot, long dstOffset, long size, MsgAttr attr, int tag) {
        int n = puts++;
        putSource[n] = src;
        putSrcOffset[n] = srcOffset;
        putPid[n] = dstPid;
        putSlot[n] = slot;
        putDstOffset[n] = dstOffset;
        putSize[n] = size;
        putAttr[n] = attr == MsgAttr.DEFAULT ? null : attr;
        putTag[n] = tag;
    }

    /** Queues a get (room was made by {@link #ensure}). */
    public void addGet(int srcPid, int slot, long srcOffset, MemorySegment dst, long dstOffset, long size) {
        int n = gets++;
        getPid[n] = srcPid;
        getSlot[n] = slot;
        getSrcOffset[n] = srcOffset;
        getDestination[n] = dst;
        getDstOffset[n] = dstOffset;
        getSize[n] = size;
    }

    /** Forgets every request, dropping the segment and attribute references. */
    public void clear() {
        if (puts > 0) {
            Arrays.fill(putSource, 0, puts, null);
            Arrays.fill(putAttr, 0, puts, null);
        }
        if (gets > 0) Arrays.fill(getDestination, 0, gets, null);
        puts = 0;
        gets = 0;
    }
}
