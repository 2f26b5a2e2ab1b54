package org.lpf4j.bsmp;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.SyncAttr;
import org.lpf4j.spi.kit.ForwardingContext;

import java.lang.foreign.MemorySegment;

/**
 * A context that forwards to a real one and counts what a library does with it: syncs, puts and
 * gets per superstep (the largest seen), registrations. Lets tests check the "LPF usage" a
 * Bsmp call documents.
 */
final class CountingContext extends ForwardingContext {
    private final Context real;
    int syncs;
    int puts;
    int gets;
    int globalRegistrations;
    int localRegistrations;
    int deregistrations;
    /** Requests queued in the current superstep. */
    int queuedNow;
    /** The largest number of requests queued in one superstep so far. */
    int maxQueued;

    CountingContext(Context real) {
        super(real);
        this.real = real;
    }

    /** Forgets all counts. */
    void reset() {
        syncs = puts = gets = globalRegistrations = localRegistrations = deregistrations = queuedNow = maxQueued = 0;
    }



    @Override public Memslot registerGlobal(MemorySegment segment) {
        Memslot slot = real.registerGlobal(segment);
        globalRegistrations++;
        return slot;
    }

    @Override public Memslot registerLocal(MemorySegment segment) {
        Memslot slot = real.registerLocal(segment);
        localRegistrations++;
        return slot;
    }

    @Override public void deregister(Memslot slot) {
        real.deregister(slot);
        deregistrations++;
    }

    @Override public void put(Memslot src, long srcOff, int dstPid, Memslot dst, long dstOff, long size, MsgAttr attr) {
        real.put(src, srcOff, dstPid, dst, dstOff, size, attr);
        puts++;
        maxQueued = Math.max(maxQueued, ++queuedNow);
    }

    @Override public void get(int srcPid, Memslot src, long srcOff, Memslot dst, long dstOff, long size, MsgAttr attr) {
        real.get(srcPid, src, srcOff, dst, dstOff, size, attr);
        gets++;
        maxQueued = Math.max(maxQueued, ++queuedNow);
    }

    @Override public void sync(SyncAttr attr) {
        real.sync(attr);
        syncs++;
        queuedNow = 0;
    }

}
