package org.lpf4j.spi.kit;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Machine;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.SyncAttr;

import java.lang.foreign.MemorySegment;

/**
 * For engines and decorators only: a {@link Context} that forwards every call to another one.
 * Decorators (the debug layer, {@code lpf run}'s timing wrapper, test counters) extend it and
 * override only what they observe or change. Costs one virtual call per forwarded call; holds
 * nothing but the delegate.
 */
public abstract class ForwardingContext implements Context, WireCounts.Source {
    /** The context every call goes to. */
    protected final Context delegate;

    /** @param delegate the context every call goes to (not null) */
    protected ForwardingContext(Context delegate) {
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
    }

    @Override public int pid() { return delegate.pid(); }

    @Override public int nprocs() { return delegate.nprocs(); }

    @Override public Args args() { return delegate.args(); }

    @Override public long superstep() { return delegate.superstep(); }

    @Override public void exec(int p, Spmd spmd, Args args) { delegate.exec(p, spmd, args); }

    @Override public void rehook(Spmd spmd, Args args) { delegate.rehook(spmd, args); }

    @Override public Memslot registerGlobal(MemorySegment segment) { return delegate.registerGlobal(segment); }

    @Override public Memslot registerLocal(MemorySegment segment) { return delegate.registerLocal(segment); }

    @Override public void deregister(Memslot slot) { delegate.deregister(slot); }

    @Override
    public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        delegate.put(srcSlot, srcOffset, dstPid, dstSlot, dstOffset, size, attr);
    }

    @Override
    public void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size, MsgAttr attr) {
        delegate.get(srcPid, srcSlot, srcOffset, dstSlot, dstOffset, size, attr);
    }

    @Override public void sync(SyncAttr attr) { delegate.sync(attr); }

    @Override public boolean supports(org.lpf4j.Capability capability) { return delegate.supports(capability); }

    @Override public Machine probe() { return delegate.probe(); }

    @Override public void resizeMemoryRegister(long maxRegs) { delegate.resizeMemoryRegister(maxRegs); }

    @Override public void resizeMessageQueue(long maxMsgs) { delegate.resizeMessageQueue(maxMsgs); }

    /** The wrapped context's message counts (null when its engine counts none). */
    @Override public WireCounts wireCounts() { return WireCounts.of(delegate); }

    @Override public String toString() { return getClass().getSimpleName() + "[" + delegate + "]"; }
}
