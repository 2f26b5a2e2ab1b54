package org.lpf4j.engine.hybrid;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The requests one process queued in one superstep for processes on other nodes, as parallel
 * arrays (grown only by {@code resizeMessageQueue}, never by a put or get). Written by its
 * process; read by the node's leader between the first and second barrier of a sync, when the
 * process waits, so a put's source is read then and needs no copy at put time. The leader writes
 * back where each get's reply landed ({@link #getReplyAt}).
 */
final class RemoteRequests {
    int puts, gets;
    int[] putPid = new int[0], putSlot = new int[0];
    long[] putSrcOffset = new long[0], putDstOffset = new long[0], putSize = new long[0];
    MemorySegment[] putSource = new MemorySegment[0];
    /** A combining put's attribute, null for a plain put. */
    org.lpf4j.MsgAttr[] putAttr = new org.lpf4j.MsgAttr[0];
    int[] getPid = new int[0], getSlot = new int[0];
    long[] getSrcOffset = new long[0], getDstOffset = new long[0], getSize = new long[0], getReplyAt = new long[0];
    MemorySegment[] getDestination = new MemorySegment[0];

    /** Makes room for {@code n} puts and {@code n} gets (the message queue capacity). */
    void ensure(int n) {
        if (n <= putPid.length) return;
        putPid = Arrays.copyOf(putPid, n);
        putSlot = Arrays.copyOf(putSlot, n);
        putSrcOffset = Arrays.copyOf(putSrcOffset, n);
        putDstOffset = Arrays.copyOf(putDstOffset, n);
        putSize = Arrays.copyOf(putSize, n);
        putSource = Arrays.copyOf(putSource, n);
        putAttr = Arrays.copyOf(putAttr, n);
        getPid = Arrays.copyOf(getPid, n);
        getSlot = Arrays.copyOf(getSlot, n);
        getSrcOffset = Arrays.copyOf(getSrcOffset, n);
        getDstOffset = Arrays.copyOf(getDstOffset, n);
        getSize = Arrays.copyOf(getSize, n);
        getReplyAt = Arrays.copyOf(getReplyAt, n);
        getDestination = Arrays.copyOf(getDestination, n);
    }

    int count() { return puts + gets; }

    void addPut(MemorySegment src, long srcOffset, int dstPid, int slot, long dstOffset, long size, org.lpf4j.MsgAttr attr) {
        int i = puts++;
        putAttr[i] = attr == org.lpf4j.MsgAttr.DEFAULT ? null : attr;
        putSource[i] = src;
        putSrcOffset[i] = srcOffset;
        putPid[i] = dstPid;
        putSlot[i] = slot;
        putDstOffset[i] = dstOffset;
        putSize[i] = size;
    }

    void addGet(int srcPid, int slot, long srcOffset, MemorySegment dst, long dstOffset, long size) {
        int i = gets++;
        getPid[i] = srcPid;
        getSlot[i] = slot;
        getSrcOffset[i] = srcOffset;
        getDestination[i] = dst;
        getDstOffset[i] = dstOffset;
        getSize[i] = size;
    }

    /** Forgets the superstep's requests (drops the segment references). */
    void clear() {
        if (puts > 0) {
            Arrays.fill(putSource, 0, puts, null);
            Arrays.fill(putAttr, 0, puts, null);
        }
        if (gets > 0) Arrays.fill(getDestination, 0, gets, null);
        puts = 0;
        gets = 0;
    }
}
