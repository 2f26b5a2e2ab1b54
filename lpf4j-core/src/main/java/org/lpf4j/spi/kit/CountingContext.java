package org.lpf4j.spi.kit;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.SyncAttr;

import java.lang.foreign.MemorySegment;

/**
 * A context that forwards every call and counts what a library does with it: syncs, puts and
 * gets (counted before the wrapped context sees them, so a refused request counts too), global
 * and local registrations, deregistrations, and the most requests queued in one superstep. It lets
 * a library's tests check the "LPF usage" its Javadoc promises (how many syncs a call makes, how
 * many queue entries and register entries it takes). Used by one process's thread, like the
 * context it wraps; costs one counter update per call.
 */
public final class CountingContext extends ForwardingContext {
    private int syncs, puts, gets, globalRegistrations, localRegistrations, deregistrations, queuedNow, maxQueued;

    /** @param delegate the context every call goes to */
    public CountingContext(Context delegate) {
        super(delegate);
    }

    /** Sets every count to zero. */
    public void reset() {
        syncs = puts = gets = globalRegistrations = localRegistrations = deregistrations = queuedNow = maxQueued = 0;
    }

    /** @return the syncs made through this context */
    public int syncs() { return syncs; }

    /** @return the puts made through this context */
    public int puts() { return puts; }

    /** @return the gets made through this context */
    public int gets() { return gets; }

    /** @return the puts and gets made through this context */
    public int requests() { return puts + gets; }

    /** @return the global registrations made through this context */
    public int globalRegistrations() { return globalRegistrations; }

    /** @return the local registrations made through this context */
    public int localRegistrations() { return localRegistrations; }

    /** @return the registrations, global and local, made through this context */
    public int registrations() { return globalRegistrations + localRegistrations; }

    /** @return the deregistrations made through this context */
    public int deregistrations() { return deregistrations; }

    /** @return the most puts and gets queued in one superstep so far */
    public int maxQueued() { return maxQueued; }

    @Override public Memslot registerGlobal(MemorySegment segment) {
        Memslot slot = delegate.registerGlobal(segment);
        globalRegistrations++;
        return slot;
    }

    @Override public Memslot registerLocal(MemorySegment segment) {
        Memslot slot = delegate.registerLocal(segment);
        localRegistrations++;
        return slot;
    }

    @Override public void deregister(Memslot slot) {
        delegate.deregister(slot);
        deregistrations++;
    }

    @Override public void put(Memslot src, long srcOff, int dstPid, Memslot dst, long dstOff, long size, MsgAttr attr) {
        puts++;
        maxQueued = Math.max(maxQueued, ++queuedNow);
        delegate.put(src, srcOff, dstPid, dst, dstOff, size, attr);
    }

    @Override public void get(int srcPid, Memslot src, long srcOff, Memslot dst, long dstOff, long size, MsgAttr attr) {
        gets++;
        maxQueued = Math.max(maxQueued, ++queuedNow);
        delegate.get(srcPid, src, srcOff, dst, dstOff, size, attr);
    }

    @Override public void sync(SyncAttr attr) {
        delegate.sync(attr);
        syncs++;
        queuedNow = 0;
    }
}
