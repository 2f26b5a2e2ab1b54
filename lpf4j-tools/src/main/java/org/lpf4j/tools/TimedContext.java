package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.SyncAttr;
import org.lpf4j.spi.kit.ForwardingContext;


/**
 * A {@link Context} that forwards every call to another one and counts the syncs and the time
 * spent in them, so that {@code lpf run} can report the time per superstep of any SPMD program.
 * Costs two {@link System#nanoTime()} calls per sync; allocates nothing per call. Used by one
 * thread, like the context it wraps.
 */
class TimedContext extends ForwardingContext {
    private long syncs;
    private long syncNanos;

    /** @param inner the context to forward to */
    TimedContext(Context inner) { super(inner); }

    /** @return the number of syncs that returned normally so far */
    long syncs() { return syncs; }

    /** @return the nanoseconds spent in syncs that returned normally so far */
    long syncNanos() { return syncNanos; }

    @Override
    public void sync(SyncAttr attr) {
        long t0 = System.nanoTime();
        delegate.sync(attr);
        syncNanos += System.nanoTime() - t0;
        syncs++;
    }

}
