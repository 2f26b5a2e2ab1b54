package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A program of known supersteps for {@link ProfileTest}: superstep 0 resizes, superstep 1
 * registers, then R supersteps each put n bytes from every process to the next one in a ring,
 * and the last superstep (after the last sync) computes nothing. In ring superstep {@code slowStep}
 * (counted from 0 among the ring supersteps, so superstep {@code slowStep + 2} of the section),
 * process {@code slowPid} sleeps {@code sleepMillis} before its put, or throws if it is negative.
 *
 * <p>Symbols: n, R, slowStep, slowPid, sleepMillis.
 */
public class RingProfile implements Spmd {
    /** Supersteps before the ring: the resize and the registration. */
    static final int SETUP = 2;

    /** For lpf run. */
    public RingProfile() {}

    @Override
    public void run(Context ctx) throws InterruptedException {
        List<Object> a = ctx.args().symbols();
        long n = Long.parseLong(a.get(0).toString());
        int rounds = Integer.parseInt(a.get(1).toString()), slowStep = Integer.parseInt(a.get(2).toString()),
                slowPid = Integer.parseInt(a.get(3).toString());
        long sleepMillis = Long.parseLong(a.get(4).toString());
        int pid = ctx.pid(), p = ctx.nprocs();
        ctx.resizeMemoryRegister(2);
        ctx.resizeMessageQueue(2);
        ctx.sync();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(Math.max(1, n)), dst = arena.allocate(Math.max(1, n));
            Memslot s = ctx.registerLocal(src), d = ctx.registerGlobal(dst);
            ctx.sync();
            for (int i = 0; i < rounds; i++) {
                if (i == slowStep && pid == slowPid) {
                    if (sleepMillis < 0) throw new IllegalStateException("RingProfile: pid " + pid + " fails as asked");
                    Thread.sleep(sleepMillis);
                }
                ctx.put(s, 0, (pid + 1) % p, d, 0, n);
                ctx.sync();
            }
            ctx.deregister(d);
            ctx.deregister(s);
        }
    }
}
