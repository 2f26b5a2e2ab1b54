package org.lpf4j.coll;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

/**
 * The one-superstep data movements: gather, scatter, allgather and alltoall. Arguments are
 * checked by {@link Collectives}; each method only queues requests (no allocation).
 */
final class Exchanges {
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
}
