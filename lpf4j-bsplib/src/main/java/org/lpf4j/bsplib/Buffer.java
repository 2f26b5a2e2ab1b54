package org.lpf4j.bsplib;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A native byte buffer of the layer that grows by doubling and is registered locally when a sync
 * needs it as the source or destination of core requests. Bytes are taken 8-aligned from the
 * front and all given back at once ({@link #used} = 0) at the end of a superstep.
 */
final class Buffer {
    private final Context ctx;
    MemorySegment seg = MemorySegment.NULL;
    private Memslot slot;
    private MemorySegment registered;
    long used;

    Buffer(Context ctx) { this.ctx = ctx; }

    static long align8(long n) { return (n + 7) & ~7L; }

    /** @return the offset of {@code n} fresh bytes (8-aligned), growing the buffer if needed */
    long take(long n) {
        long at = used, end = Math.addExact(at, align8(n));
        if (end > seg.byteSize()) grow(end, at);
        used = end;
        return at;
    }

    /** Makes room for {@code end} bytes, keeping the first {@code keep}. */
    void grow(long end, long keep) {
        MemorySegment bigger = Arena.ofAuto().allocate(Math.max(end, Math.max(64, 2 * seg.byteSize())), 8);
        if (keep > 0) MemorySegment.copy(seg, 0, bigger, 0, keep);
        seg = bigger;
    }

    /** Registers the current segment locally if it is not yet (the old slot is dropped first). */
    Memslot slot() {
        if (registered != seg) {
            if (slot != null) ctx.deregister(slot);
            slot = null;
            slot = ctx.registerLocal(seg);
            registered = seg;
        }
        return slot;
    }

    void release() {
        if (slot != null) ctx.deregister(slot);
        slot = null;
    }
}
