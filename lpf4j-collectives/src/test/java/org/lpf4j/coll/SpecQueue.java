package org.lpf4j.coll;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;
import org.lpf4j.Spmd;
import org.lpf4j.SyncAttr;
import org.lpf4j.spi.kit.ForwardingContext;

import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The message-queue count of the core specification, enforced exactly: each put or get takes
 * one entry at its origin and one at its target (which may be the origin), and a process's
 * entries in a superstep must not exceed {@code capacity}. The engines check less (the threads
 * engine only the origin side, the debug layer each side on its own), so a leaked request or a
 * too small Javadoc number would pass them; this decorator fails the sync instead, naming the
 * pid, the superstep and both counts. It also records the largest count seen at each pid.
 *
 * <p>One instance per SPMD section, captured by its SPMD function (it is serializable, so the
 * function crosses JVMs on a multi-process engine); each process runs its part through
 * {@link #run}. A process knows its origin entries and where its requests go; the targets'
 * counts travel through the engine itself: every sync also carries one 8-byte put per other
 * process (its count of entries at that process), so every engine, in one JVM or many, is
 * checked the same way. The wrapper reserves what this needs on top of the program's own
 * reservations (2 register entries, 2(p-1) queue entries: origin and target of those puts), so
 * the program still reserves exactly its own numbers. Counting starts once the program has
 * resized the register and the queue and synced twice (the wrapper's slots are registered after
 * the first of those syncs); a request before that fails, so nothing goes uncounted.
 */
final class SpecQueue implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private final int nprocs;
    private final long capacity;
    /**
     * The largest count each pid saw in a superstep (each pid writes its own entry; on a
     * multi-process engine each JVM has its own copy, with its own processes' entries filled).
     */
    private final AtomicLongArray peak;

    /**
     * @param nprocs   processes of the section
     * @param capacity the entries each process may take per superstep
     */
    SpecQueue(int nprocs, long capacity) {
        this.nprocs = nprocs;
        this.capacity = capacity;
        this.peak = new AtomicLongArray(nprocs);
    }

    /** @return the largest entries pid {@code pid} took in one superstep so far (read it in process {@code pid}) */
    long peak(int pid) { return peak.get(pid); }

    /**
     * Runs {@code body} on {@code ctx}, counted, then deregisters the wrapper's own slots (a
     * program must leave none registered). Called by each process of the section.
     */
    void run(Context ctx, Spmd body) throws Exception {
        if (ctx.nprocs() != nprocs) {
            throw new IllegalArgumentException("SpecQueue for " + nprocs + " processes wraps a context of " + ctx.nprocs());
        }
        Counted counted = new Counted(ctx);
        body.run(counted);
        counted.close();
    }

    private final class Counted extends ForwardingContext {
        private final Context c;
        private final int me;
        /** Entries this process took as origin in the current superstep. */
        private long origin;
        /** Per pid: entries this process's requests of the current superstep take there as target. */
        private final long[] toward;
        /** What this process sends (its {@code toward}, at sync) and what the others sent it. */
        private final MemorySegment out, in;
        private Memslot outSlot, inSlot;
        private boolean registerResized, queueResized, queueReady, active, closed;

        Counted(Context c) {
            super(c);
            this.c = c;
            this.me = c.pid();
            this.toward = new long[nprocs];
            this.out = MemorySegment.ofArray(new long[nprocs]);
            this.in = MemorySegment.ofArray(new long[nprocs]);
        }

        private void count(int remotePid) {
            if (!active) {
                throw new AssertionError("SpecQueue: pid " + me + " made a request in superstep " + c.superstep()
                        + ", before the counting started (resize the register and the queue, then sync twice)");
            }
            origin++;
            toward[remotePid]++;
        }

        /** Deregisters the wrapper's slots; requests are not counted afterwards. */
        void close() {
            if (inSlot != null) {
                c.deregister(inSlot);
                c.deregister(outSlot);
            }
            active = false;
            closed = true;
        }

        @Override
        public void resizeMemoryRegister(long maxRegs) {
            c.resizeMemoryRegister(maxRegs + 2);
            registerResized = true;
        }

        @Override
        public void resizeMessageQueue(long maxMsgs) {
            c.resizeMessageQueue(maxMsgs + 2L * (nprocs - 1));
            queueResized = true;
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
            boolean counting = active;
            if (counting) {
                for (int q = 0; q < nprocs; q++) {
                    if (q == me) continue;
                    out.set(LONG, q * 8L, toward[q]);
                    c.put(outSlot, q * 8L, q, inSlot, me * 8L, 8);
                }
            }
            c.sync(attr);
            if (counting) {
                long used = origin + toward[me];
                for (int q = 0; q < nprocs; q++) if (q != me) used += in.get(LONG, q * 8L);
                origin = 0;
                java.util.Arrays.fill(toward, 0);
                peak.accumulateAndGet(me, used, Math::max);
                if (used > capacity) {
                    throw new AssertionError("pid " + me + " took " + used + " message-queue entries (origin plus target)"
                            + " in superstep " + step + ", more than the " + capacity + " reserved");
                }
            }
            if (queueResized) queueReady = true;
            if (closed) return;
            if (inSlot != null) {
                active = queueReady;
            } else if (registerResized) {
                // The register now has room for the two slots; the global one is usable after the next sync.
                outSlot = c.registerLocal(out);
                inSlot = c.registerGlobal(in);
            }
        }
    }
}
