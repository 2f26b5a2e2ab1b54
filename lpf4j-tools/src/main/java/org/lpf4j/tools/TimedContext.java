package org.lpf4j.tools;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Machine;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.SyncAttr;

import java.lang.foreign.MemorySegment;

/**
 * A {@link Context} that forwards every call to another one and counts the syncs and the time
 * spent in them, so that {@code lpf run} can report the time per superstep of any SPMD program.
 * Costs two {@link System#nanoTime()} calls per sync; allocates nothing per call. Used by one
 * thread, like the context it wraps.
 */
final class TimedContext implements Context {
    private final Context inner;
    private long syncs;
    private long syncNanos;

    /** @param inner the context to forward to */
    TimedContext(Context inner) { this.inner = inner; }

    /** @return the number of syncs that returned normally so far */
    long syncs() { return syncs; }

    /** @return the nanoseconds spent in syncs that returned normally so far */
    long syncNanos() { return syncNanos; }

    @Override public int pid() { return inner.pid(); }

    @Override public int nprocs() { return inner.nprocs(); }

    @Override public Args args() { return inner.args(); }

    @Override public long superstep() { return inner.superstep(); }

    @Override public void exec(int p, Spmd spmd, Args args) { inner.exec(p, spmd, args); }

    @Override public void rehook(Spmd spmd, Args args) { inner.rehook(spmd, args); }

    @Override public Memslot registerGlobal(MemorySegment segment) { return inner.registerGlobal(segment); }

    @Override public Memslot registerLocal(MemorySegment segment) { return inner.registerLocal(segment); }

    @Override public void deregister(Memslot slot) { inner.deregister(slot); }

    @Override
    public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size,
                    MsgAttr attr) {
        inner.put(srcSlot, srcOffset, dstPid, dstSlot, dstOffset, size, attr);
    }

    @Override
    public void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size,
                    MsgAttr attr) {
        inner.get(srcPid, srcSlot, srcOffset, dstSlot, dstOffset, size, attr);
    }

    @Override
    public void sync(SyncAttr attr) {
        long t0 = System.nanoTime();
        inner.sync(attr);
        syncNanos += System.nanoTime() - t0;
        syncs++;
    }

    @Override public Machine probe() { return inner.probe(); }

    @Override public void resizeMemoryRegister(long maxRegs) { inner.resizeMemoryRegister(maxRegs); }

    @Override public void resizeMessageQueue(long maxMsgs) { inner.resizeMessageQueue(maxMsgs); }

    @Override public String toString() { return "Timed[" + inner + "]"; }
}
