package org.lpf4j.debug;

import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;

/** What the debug layer knows of one live registration of its process. */
final class SlotInfo {
    final Memslot slot;
    final MemorySegment segment;
    /** The first superstep (count of completed syncs) in which the slot may be used. */
    final long activeFrom;
    /** Where it was registered. */
    final String site;

    SlotInfo(Memslot slot, MemorySegment segment, long activeFrom, String site) {
        this.slot = slot;
        this.segment = segment;
        this.activeFrom = activeFrom;
        this.site = site;
    }
}
