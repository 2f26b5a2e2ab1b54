package org.lpf4j.coll;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The data movements without reductions: gather, scatter, allgather, alltoall and allgatherv
 * (one superstep each) and alltoallv (one internal sync). Arguments are checked by
 * {@link Collectives}; each method only queues requests (no allocation).
 */
final class Exchanges {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private Exchanges() {}

    /** Non-roots put their block into the root's {@code dst} at {@code rank·size}. */
    static void gather(Collectives c, Memslot src, Memslot dst, long size, int root) {
        Members m = c.members;
        if (m.rank != root && size > 0) c.ctx.put(src, 0, m.pid(root), dst, m.rank * size, size);
    }

    /** Non-roots get block {@code rank} of the root's {@code src} into their {@code dst}. */
    static void scatter(Collectives c, Memslot src, Memslot dst, long size, int root) {
        Members m = c.members;
        if (m.rank != root && size > 0) c.ctx.get(m.pid(root), src, m.rank * size, dst, 0, size);
    }

    /** Every member puts its block to every other member's {@code dst} at {@code rank·size}. */
    static void allgather(Collectives c, Memslot src, Memslot dst, long size, boolean excludeMyself) {
        Members m = c.members;
        if (size == 0) return;
        Context ctx = c.ctx;
        for (int k = 0; k < m.count; k++) {
            if (k != m.rank || !excludeMyself) ctx.put(src, 0, m.pid(k), dst, m.rank * size, size);
        }
    }

    /** Member s puts block k of its {@code src} to member k's {@code dst} at {@code s·size}, k ≠ s. */
    static void alltoall(Collectives c, Memslot src, Memslot dst, long size) {
        Members m = c.members;
        if (size == 0) return;
        Context ctx = c.ctx;
        for (int k = 0; k < m.count; k++) {
            if (k != m.rank) ctx.put(src, k * size, m.pid(k), dst, m.rank * size, size);
        }
    }

    /** Member s puts its {@code count} bytes to every member's {@code dst} at {@code offset} (its own unless excluded). */
    static void allgatherv(Collectives c, Memslot src, Memslot dst, long count, long offset, boolean excludeMyself) {
        Members m = c.members;
        if (count == 0) return;
        Context ctx = c.ctx;
        for (int k = 0; k < m.count; k++) {
            if (k != m.rank || !excludeMyself) ctx.put(src, 0, m.pid(k), dst, offset, count);
        }
    }

    /**
     * Puts (sendOffsets[k], sendCounts[k]) into member k's incoming metadata, syncs, checks every
     * sender's count against {@code recvCounts}, then gets every non-empty part (its own too)
     * into {@code dst}. The metadata area starts at {@code meta} in the object's buffer: P
     * outgoing pairs of longs, then P incoming ones. With one member there is nothing to learn
     * and no sync.
     *
     * @throws IllegalStateException if a sender's count differs from recvCounts (nothing of the
     *                               data superstep is then queued)
     */
    static void alltoallv(Collectives c, Memslot src, long[] sendCounts, long[] sendOffsets, Memslot dst,
                          long[] recvCounts, long[] recvOffsets, long meta) {
        Members m = c.members;
        Context ctx = c.ctx;
        MemorySegment buf = c.buffer;
        int p = m.count, r = m.rank;
        long in = meta + 16L * p;
        if (p > 1) {
            for (int k = 0; k < p; k++) {
                if (k == r) continue;
                long out = meta + 16L * k;
                buf.set(LONG, out, sendOffsets[k]);
                buf.set(LONG, out + 8, sendCounts[k]);
                ctx.put(c.bufferSlot, out, m.pid(k), c.bufferSlot, in + 16L * r, 16);
            }
            c.internalSync();
            for (int k = 0; k < p; k++) {
                long count = k == r ? sendCounts[r] : buf.get(LONG, in + 16L * k + 8);
                if (count != recvCounts[k]) {
                    throw new IllegalStateException("alltoallv at pid " + ctx.pid() + ": pid " + m.pid(k) + " sends "
                            + count + " bytes here (its sendCounts[" + r + "]), but recvCounts[" + k + "] = "
                            + recvCounts[k] + "; nothing of the exchange was queued");
                }
            }
        }
        for (int k = 0; k < p; k++) {
            long count = recvCounts[k];
            if (count == 0) continue;
            long from = k == r ? sendOffsets[r] : buf.get(LONG, in + 16L * k);
            ctx.get(m.pid(k), src, from, dst, recvOffsets[k], count);
        }
    }
}
