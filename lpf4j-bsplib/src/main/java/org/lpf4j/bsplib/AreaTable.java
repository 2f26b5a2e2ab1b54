package org.lpf4j.bsplib;

import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;

/**
 * The registered areas by identity, as C BSPlib keys them by pointer: a native segment by its
 * address, a heap segment by its array (identity) and its offset in it. Each key holds a stack
 * of registrations (push_reg of the same area twice stacks); a key whose last registration is
 * removed goes too, so that the table holds neither the areas' arrays nor room for areas no
 * longer registered. Open addressing (linear probing) over parallel arrays, so a lookup on the
 * put/get path allocates nothing.
 */
final class AreaTable {
    /** One push_reg. */
    static final class Reg {
        static final int PENDING = 0, ACTIVE = 1, POPPING = 2;
        final MemorySegment area;
        /** This process's size. */
        final long size;
        /** The size every process registered, known from the sync that activates this one. */
        final long[] sizes;
        /** The number of pushes before this one since begin: the same on every process. */
        int seq;
        Memslot slot;
        int state = PENDING;
        Reg below;

        Reg(MemorySegment area, int nprocs) {
            this.area = area;
            this.size = area.byteSize();
            this.sizes = new long[nprocs];
        }

        boolean usable() { return state != PENDING; }
    }

    private Object[] bases = new Object[16];
    private long[] addrs = new long[16];
    private Reg[] tops = new Reg[16];
    private boolean[] used = new boolean[16];
    private int keys;

    // heapBase() allocates an Optional; the arrays of the last heap segments looked up are kept
    // by segment identity (direct-mapped), so a program that reuses its segments allocates nothing.
    private final MemorySegment[] cachedSegs = new MemorySegment[16];
    private final Object[] cachedBases = new Object[16];

    /** @return the heap array of a heap segment, or null for a native one */
    Object base(MemorySegment s) {
        if (s.isNative()) return null;
        int i = System.identityHashCode(s) & (cachedSegs.length - 1);
        if (cachedSegs[i] == s) return cachedBases[i];
        Object b = s.heapBase().orElse(null);
        cachedSegs[i] = s;
        cachedBases[i] = b;
        return b;
    }

    private static int hash(Object base, long addr, int mask) {
        long h = (base == null ? 0 : System.identityHashCode(base)) * 0x9E3779B97F4A7C15L ^ addr * 0xC2B2AE3D27D4EB4FL;
        return (int) (h ^ (h >>> 29)) & mask;
    }

    private int find(Object base, long addr) {
        int mask = used.length - 1;
        for (int i = hash(base, addr, mask); ; i = (i + 1) & mask) {
            if (!used[i]) return ~i;
            if (bases[i] == base && addrs[i] == addr) return i;
        }
    }

    /** @return the latest registration of the area starting where {@code s} starts, or null */
    Reg top(MemorySegment s) {
        int i = find(base(s), s.address());
        return i < 0 ? null : tops[i];
    }

    /** @return the latest registration usable in this superstep (activated by a sync), or null */
    Reg usable(MemorySegment s) {
        Reg r = top(s);
        while (r != null && !r.usable()) r = r.below;
        return r;
    }

    void push(Reg r) {
        Object b = base(r.area);
        long a = r.area.address();
        int i = find(b, a);
        if (i < 0) {
            if (2 * (keys + 1) > used.length) {
                grow();
                i = find(b, a);
            }
            i = ~i;
            used[i] = true;
            bases[i] = b;
            addrs[i] = a;
            keys++;
        }
        r.below = tops[i];
        tops[i] = r;
    }

    /** @return the number of areas with a registration */
    int keys() { return keys; }

    /** Unlinks {@code r} from its area's stack (wherever it is in it); the area's key goes with its last registration. */
    void remove(Reg r) {
        int i = find(base(r.area), r.area.address());
        if (i < 0) return;
        if (tops[i] == r) {
            tops[i] = r.below;
            if (tops[i] == null) delete(i);
            return;
        }
        for (Reg x = tops[i]; x != null; x = x.below) {
            if (x.below == r) {
                x.below = r.below;
                return;
            }
        }
    }

    /** Empties slot {@code i}, moving later entries of its probe run back so that every lookup still finds them. */
    private void delete(int i) {
        int mask = used.length - 1;
        Object gone = bases[i];
        if (gone != null) {
            for (int k = 0; k < cachedBases.length; k++) {
                if (cachedBases[k] == gone) {
                    cachedSegs[k] = null;
                    cachedBases[k] = null;
                }
            }
        }
        used[i] = false;
        bases[i] = null;
        tops[i] = null;
        keys--;
        for (int j = (i + 1) & mask; used[j]; j = (j + 1) & mask) {
            int home = hash(bases[j], addrs[j], mask);
            if (((j - home) & mask) < ((j - i) & mask)) continue; // its home lies after the hole: it stays
            used[i] = true;
            bases[i] = bases[j];
            addrs[i] = addrs[j];
            tops[i] = tops[j];
            used[j] = false;
            bases[j] = null;
            tops[j] = null;
            i = j;
        }
    }

    private void grow() {
        Object[] ob = bases;
        long[] oa = addrs;
        Reg[] ot = tops;
        boolean[] ou = used;
        int n = ou.length * 2;
        bases = new Object[n];
        addrs = new long[n];
        tops = new Reg[n];
        used = new boolean[n];
        for (int j = 0; j < ou.length; j++) {
            if (!ou[j]) continue;
            int i = ~find(ob[j], oa[j]);
            used[i] = true;
            bases[i] = ob[j];
            addrs[i] = oa[j];
            tops[i] = ot[j];
        }
    }
}
