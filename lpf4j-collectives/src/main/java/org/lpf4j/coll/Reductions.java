package org.lpf4j.coll;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.MsgAttr;

import java.lang.foreign.MemorySegment;

/**
 * The reduction algorithms behind reduce, allreduce, combine and allcombine: {@code num}
 * elements of {@code size} bytes per member, combined with a combining put ({@link MsgAttr}
 * {@code combining}) so the operator runs at the receiver inside the sync that delivers the
 * data. An area that is read and written in the same superstep is first copied ("snapshot") into
 * the call's buffer region and sent from there. {@code root} is a member rank, or {@link #ALL}.
 * Arguments are checked by {@link Collectives}; nothing here allocates.
 */
final class Reductions {
    private Reductions() {}

    /** {@code root} value meaning every member receives the result. */
    static final int ALL = -1;

    static void run(Collectives c, Algorithm a, MemorySegment array, Memslot slot, long num, long size, MsgAttr attr,
                    int root, long region) {
        switch (a) {
            case TWO_PHASE -> transpose(c, slot, num, size, attr, root);
            case TREE -> {
                if (root == ALL) treeToAll(c, array, slot, num * size, attr, region);
                else treeToRoot(c, array, slot, num * size, attr, root, region);
            }
            default -> direct(c, array, slot, num * size, attr, root, region);
        }
    }

    /** One superstep: every contribution is combined directly into every receiver. */
    private static void direct(Collectives c, MemorySegment array, Memslot slot, long n, MsgAttr attr, int root,
                               long region) {
        Members m = c.members;
        if (n == 0) return;
        if (root != ALL) {
            if (m.rank != root) c.ctx.put(slot, 0, m.pid(root), slot, 0, n, attr);
            return;
        }
        MemorySegment.copy(array, 0, c.buffer, region, n);
        for (int k = 0; k < m.count; k++) {
            if (k != m.rank) c.ctx.put(c.bufferSlot, region, m.pid(k), slot, 0, n, attr);
        }
    }

    /**
     * Transpose-reduce-allgather: the owner of each piece combines it from all, sync, then sends
     * it on. Piece i belongs to rank {@code (root + 1 + i) mod p} for a rooted call, so the last
     * (with one element: the only) piece is the root's and non-roots' elements stay unchanged.
     */
    private static void transpose(Collectives c, Memslot slot, long num, long size, MsgAttr attr, int root) {
        Members m = c.members;
        Context ctx = c.ctx;
        int p = m.count, me = m.rank, shift = root == ALL ? 0 : root + 1;
        for (int k = 0; k < p; k++) {
            int i = Math.floorMod(k - shift, p);
            long off = Broadcasts.piece(num, p, i) * size, len = Broadcasts.piece(num, p, i + 1) * size - off;
            if (k != me && len > 0) ctx.put(slot, off, m.pid(k), slot, off, len, attr);
        }
        c.internalSync();
        int mine = Math.floorMod(me - shift, p);
        long off = Broadcasts.piece(num, p, mine) * size, len = Broadcasts.piece(num, p, mine + 1) * size - off;
        if (len == 0) return;
        for (int k = 0; k < p; k++) {
            if (k != me && (root == ALL || k == root)) ctx.put(slot, off, m.pid(k), slot, off, len);
        }
    }

    /**
     * Members combine into their group leader (the root leads its own group), sync, leaders
     * combine into the root. A leader other than the root accumulates in its buffer region
     * (starting from a copy of its own array), so only the root's array changes.
     */
    private static void treeToRoot(Collectives c, MemorySegment array, Memslot slot, long n, MsgAttr attr, int root,
                                   long region) {
        Members m = c.members;
        Groups groups = c.groups;
        int v = groups.virtual(m.rank, root), rootV = groups.virtual(root, root);
        int leader = groups.leader(v, rootV);
        if (n > 0 && v == leader && v != rootV) MemorySegment.copy(array, 0, c.buffer, region, n);
        if (n > 0 && v != leader) {
            if (leader == rootV) c.ctx.put(slot, 0, m.pid(root), slot, 0, n, attr);
            else c.ctx.put(slot, 0, m.pid(groups.rank(leader, root)), c.bufferSlot, region, n, attr);
        }
        c.internalSync();
        if (v == leader && v != rootV && n > 0) c.ctx.put(c.bufferSlot, region, m.pid(root), slot, 0, n, attr);
    }

    /**
     * All-to-all combine inside each group, sync, then member i of every other group sends its
     * group's result to member i of this group (the last member of a smaller group serves the
     * members beyond it).
     */
    private static void treeToAll(Collectives c, MemorySegment array, Memslot slot, long n, MsgAttr attr, long region) {
        Members m = c.members;
        Groups groups = c.groups;
        Context ctx = c.ctx;
        int me = m.rank, g = groups.of(me), start = groups.start(g), mySize = groups.size(g), j = me - start;
        if (n > 0) {
            MemorySegment.copy(array, 0, c.buffer, region, n);
            for (int u = start; u < start + mySize; u++) {
                if (u != me) ctx.put(c.bufferSlot, region, m.pid(u), slot, 0, n, attr);
            }
        }
        c.internalSync();
        if (n == 0) return;
        MemorySegment.copy(array, 0, c.buffer, region, n);
        for (int h = 0; h < groups.count; h++) {
            if (h == g) continue;
            int first = groups.start(h), last = j == mySize - 1 ? groups.size(h) - 1 : Math.min(j, groups.size(h) - 1);
            for (int i = j; i <= last; i++) ctx.put(c.bufferSlot, region, m.pid(first + i), slot, 0, n, attr);
        }
    }
}
