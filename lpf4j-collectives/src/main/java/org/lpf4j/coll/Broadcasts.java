package org.lpf4j.coll;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

/**
 * The three broadcast algorithms. Non-roots read with gets, because their {@code dst} may be a
 * local slot; the two-superstep variants stage data in the object's buffer region of the call.
 * Arguments are checked by {@link Collectives}; nothing here allocates.
 */
final class Broadcasts {
    private Broadcasts() {}

    static void run(Collectives c, Algorithm a, Memslot src, Memslot dst, long n, int root, long region) {
        switch (a) {
            case TWO_PHASE -> twoPhase(c, src, dst, n, root, region);
            case TREE -> tree(c, src, dst, n, root, region);
            default -> direct(c, src, dst, n, root);
        }
    }

    /** One superstep: every non-root reads the whole vector from the root. */
    private static void direct(Collectives c, Memslot src, Memslot dst, long n, int root) {
        Members m = c.members;
        if (m.rank != root && n > 0) c.ctx.get(m.pid(root), src, 0, dst, 0, n);
    }

    /** Scatter piece k to member k's buffer, sync, then every non-root reads all pieces. */
    private static void twoPhase(Collectives c, Memslot src, Memslot dst, long n, int root, long region) {
        Members m = c.members;
        Context ctx = c.ctx;
        int p = m.count, me = m.rank, rootPid = m.pid(root);
        long mine = piece(n, p, me), mineLen = piece(n, p, me + 1) - mine;
        if (me != root && mineLen > 0) ctx.get(rootPid, src, mine, c.bufferSlot, region, mineLen);
        c.internalSync();
        if (me == root) return;
        for (int k = 0; k < p; k++) {
            long off = piece(n, p, k), len = piece(n, p, k + 1) - off;
            if (len == 0) continue;
            if (k == root) ctx.get(rootPid, src, off, dst, off, len);
            else ctx.get(m.pid(k), c.bufferSlot, region, dst, off, len);
        }
    }

    /**
     * Root to the other group leaders' buffers, sync, then every member reads from its leader
     * (the root leads its own group; with node groups the upper level is the only one that
     * crosses nodes).
     */
    private static void tree(Collectives c, Memslot src, Memslot dst, long n, int root, long region) {
        Members m = c.members;
        Context ctx = c.ctx;
        Groups groups = c.groups;
        int v = groups.virtual(m.rank, root), rootV = groups.virtual(root, root), rootPid = m.pid(root);
        int leader = groups.leader(v, rootV);
        if (v == leader && v != rootV && n > 0) ctx.get(rootPid, src, 0, c.bufferSlot, region, n);
        c.internalSync();
        if (v == rootV || n == 0) return;
        if (leader == rootV) ctx.get(rootPid, src, 0, dst, 0, n);
        else ctx.get(m.pid(groups.rank(leader, root)), c.bufferSlot, region, dst, 0, n);
    }

    /** @return {@code ⌊n·k/p⌋}, the start of piece k of n units cut in p nearly equal pieces (no overflow) */
    static long piece(long n, int p, int k) {
        return n / p * k + n % p * k / p;
    }
}
