package org.lpf4j.coll;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.SyncAttr;
import org.lpf4j.spi.kit.ForwardingContext;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The message-queue count of the core specification, enforced exactly: each put or get takes
 * one entry at its origin and one at its target (which may be the origin), and a process's
 * entries in a superstep must not exceed {@code capacity}. The engines check less (the threads
 * engine only the origin side, the debug layer each side on its own), so a leaked request or a
 * too small Javadoc number would pass them; this decorator fails the sync instead, naming the
 * pid, the superstep and both counts. It also records the largest count seen at each pid.
 *
 * <p>One instance per SPMD section; each process wraps its own context with {@link #wrap}.
 * Counts are kept per superstep parity: a superstep's targets are all counted before its sync
 * returns, and its counter is reset by its owner before the sync two supersteps later.
 */
final class SpecQueue {
    private final int nprocs;
    private final long capacity;
    /** Entries per superstep parity and pid: targets counted by other processes, origins by the owner. */
    private final AtomicLongArray entries;
    /** The largest count each pid saw in a superstep. */
    private final AtomicLongArray peak;

    /**
     * @param nprocs   processes of the section
     * @param capacity the entries each process may take per superstep
     */
    SpecQueue(int nprocs, long capacity) {
        this.nprocs = nprocs;
        this.capacity = capacity;
        this.entries = new AtomicLongArray(2 * nprocs);
        this.peak = new AtomicLongArray(nprocs);
    }

    /** @return the largest entries pid {@code pid} took in one superstep so far */
    long peak(int pid) { return peak.get(pid); }

    /** @return the largest entries any process took in one superstep so far */
    long peak() {
        long max = 0;
        for (int q = 0; q < nprocs; q++) max = Math.max(max, peak.get(q));
        return max;
    }

    /** @return {@code ctx}, counted */
    Context wrap(Context ctx) {
        return new Counted(ctx);
    }

    private final class Counted extends ForwardingContext {
        private final Context c;

        Counted(Context c) {
            super(c);
            this.c = c;
        }

        private void count(int remotePid) {
            int parity = (int) (c.superstep() & 1);
            entries.incrementAndGet(parity * nprocs + c.pid());
            entries.incrementAndGet(parity * nprocs + remotePid);
        }


        @Override
        public void put(Memslot srcSlot, long srcOffset, int dstPid, Memslot dstSlot, long dstOffset, long size,
                        MsgAttr attr) {
            c.put(srcSlot, srcOffset, dstPid, dstSlot, dstOffset, size, attr);
            count(dstPid);
        }

        @Override
        public void get(int srcPid, Memslot srcSlot, long srcOffset, Memslot dstSlot, long dstOffset, long size,
                        MsgAttr attr) {
            c.get(srcPid, srcSlot, srcOffset, dstSlot, dstOffset, size, attr);
            count(srcPid);
        }

        @Override
        public void sync(SyncAttr attr) {
            long step = c.superstep();
            c.sync(attr);
            int at = (int) (step & 1) * nprocs + c.pid();
            long used = entries.getAndSet(at, 0);
            peak.accumulateAndGet(c.pid(), used, Math::max);
            if (used > capacity) {
                throw new AssertionError("pid " + c.pid() + " took " + used + " message-queue entries (origin plus target)"
                        + " in superstep " + step + ", more than the " + capacity + " reserved");
            }
        }
    }
}
