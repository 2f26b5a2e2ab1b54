package org.lpf4j.debug;

import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A put or get the debug layer has checked locally and holds until the sync. The local area is
 * the put's source or the get's destination; a copy of its bytes taken at the call shows at sync
 * whether the program wrote it in between.
 */
final class Request {
    final boolean put;
    final int origin;
    final Memslot localSlot;
    final long localOffset;
    final int remotePid;
    final Memslot remoteSlot;
    final long remoteOffset;
    final long size;
    final MsgAttr attr;
    final String site;
    MemorySegment localArea;
    private byte[] snapshot;
    /** The call as its origin wrote it, for a request described by another process; else {@code null}. */
    private String callText;

    Request(boolean put, int origin, Memslot localSlot, long localOffset, int remotePid, Memslot remoteSlot,
            long remoteOffset, long size, MsgAttr attr, String site) {
        this.put = put;
        this.origin = origin;
        this.localSlot = localSlot;
        this.localOffset = localOffset;
        this.remotePid = remotePid;
        this.remoteSlot = remoteSlot;
        this.remoteOffset = remoteOffset;
        this.size = size;
        this.attr = attr;
        this.site = site;
    }

    /**
     * A request of another process, as its descriptor describes it: what the target needs to
     * check it against its own memory and to name it in a report.
     */
    static Request remote(boolean put, int origin, int target, long remoteOffset, long size, String call, String site) {
        Request r = new Request(put, origin, null, 0, target, null, remoteOffset, size, null, site);
        r.callText = call;
        return r;
    }

    /** Remembers the local area and its current bytes. */
    void capture(MemorySegment area) {
        localArea = area;
        snapshot = area.toArray(ValueLayout.JAVA_BYTE);
    }

    /** @return whether the local area's bytes changed since {@link #capture} */
    boolean localAreaChanged() {
        return MemorySegment.mismatch(MemorySegment.ofArray(snapshot), 0, size, localArea, 0, size) != -1;
    }

    /** @return whether the request names the slot, locally or remotely */
    boolean names(Memslot slot) { return localSlot == slot || remoteSlot == slot; }

    /** @return the call as the user wrote it, with its values */
    String call() {
        if (callText != null) return callText;
        return put ? "put(srcSlot=" + localSlot + ", srcOffset=" + localOffset + ", dstPid=" + remotePid + ", dstSlot="
                + remoteSlot + ", dstOffset=" + remoteOffset + ", size=" + size + ")"
                : "get(srcPid=" + remotePid + ", srcSlot=" + remoteSlot + ", srcOffset=" + remoteOffset + ", dstSlot="
                + localSlot + ", dstOffset=" + localOffset + ", size=" + size + ")";
    }

    /** @return a short description for messages about several requests */
    String brief() { return (put ? "put" : "get") + " by pid " + origin + " at " + site; }
}
