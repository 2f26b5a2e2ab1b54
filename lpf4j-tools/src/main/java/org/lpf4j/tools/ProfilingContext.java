package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.SyncAttr;
import org.lpf4j.spi.kit.WireCounts;

/**
 * The {@link TimedContext} of {@code lpf run --profile}: besides counting syncs it records every
 * superstep of this process into a {@link SuperstepLog} (compute time before the sync, time in
 * it, the puts and gets queued per peer, and what its engine sent to other JVMs in the sync:
 * {@link WireCounts}). Only made when profiling, so a run without
 * {@code --profile} pays nothing for it. Cost per put or get: one array increment per counter;
 * per sync: two more {@link System#nanoTime()} calls than {@link TimedContext}. Used by one
 * thread, like the context it wraps.
 */
final class ProfilingContext extends TimedContext {
    private final SuperstepLog log;
    /** When the last sync returned (or the context was made: the section's start). */
    private long lastEnd;
    /** The engine's counts of what this process sends (null when it counts none), and scratch for a sync's difference. */
    private final WireCounts wire;
    private final long[] before = new long[WireCounts.COUNTERS], after = new long[WireCounts.COUNTERS],
            sent = new long[SuperstepLog.WIDTH];

    /** @param inner the context to forward to; the section's clock starts now */
    ProfilingContext(Context inner) {
        super(inner);
        log = new SuperstepLog(inner.pid(), inner.nprocs());
        wire = WireCounts.of(inner);
        lastEnd = System.nanoTime();
    }

    @Override
    public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        super.put(srcSlot, srcOffset, dstPid, dstSlot, dstOffset, size, attr);
        log.put(dstPid, size);
    }

    @Override
    public void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        super.get(srcPid, srcSlot, srcOffset, dstSlot, dstOffset, size, attr);
        log.get(srcPid, size);
    }

    @Override
    public void sync(SyncAttr attr) {
        if (wire != null) wire.read(before);
        long t0 = System.nanoTime();
        super.sync(attr);
        long t1 = System.nanoTime();
        if (wire != null) {
            wire.read(after);
            for (int i = 0; i < WireCounts.COUNTERS; i++) sent[i] = after[i] < 0 ? -1 : after[i] - before[i];
            sent[WireCounts.COUNTERS] = wire.connections();
            for (int path = 0; path < WireCounts.PATHS; path++) sent[WireCounts.COUNTERS + 1 + path] = wire.connections(path);
        }
        log.endStep(t0 - lastEnd, t1 - t0, wire == null ? null : sent);
        lastEnd = t1;
    }

    /**
     * Ends the last superstep (the compute after the last sync, which has no sync); call once,
     * when the program has returned.
     *
     * @return the log, complete
     */
    SuperstepLog finish() {
        log.endStep(System.nanoTime() - lastEnd, 0, null); // no sync: nothing sent
        return log;
    }
}
