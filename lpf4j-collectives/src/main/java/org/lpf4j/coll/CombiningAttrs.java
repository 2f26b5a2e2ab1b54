package org.lpf4j.coll;

import org.lpf4j.MsgAttr;

import java.lang.foreign.MemorySegment;

/**
 * A small cache of combining-put attributes per (operator, element size), so that repeated
 * reductions with the same operator allocate nothing. Eight entries, replaced round-robin;
 * lookup is a linear scan by identity.
 */
final class CombiningAttrs {
    private static final int SLOTS = 8;
    private final Object[] ops = new Object[SLOTS];
    private final long[] sizes = new long[SLOTS];
    private final boolean[] fromReducer = new boolean[SLOTS];
    private final MsgAttr[] attrs = new MsgAttr[SLOTS];
    private int next;

    /** @return a combining attribute applying {@code combiner} to elements of {@code size} bytes */
    MsgAttr ofCombiner(Combiner combiner, long size) { return lookup(combiner, size, false); }

    /** @return a combining attribute folding each arriving {@code size}-byte element with {@code reducer} */
    MsgAttr ofReducer(Reducer reducer, long size) { return lookup(reducer, size, true); }

    private MsgAttr lookup(Object op, long size, boolean reducer) {
        for (int i = 0; i < SLOTS; i++) {
            if (ops[i] == op && sizes[i] == size && fromReducer[i] == reducer) return attrs[i];
        }
        MsgAttr attr = reducer ? MsgAttr.combining(size, new ReducerAsCombiner((Reducer) op, size))
                : MsgAttr.combining(size, (Combiner) op);
        int i = next;
        next = (next + 1) % SLOTS;
        ops[i] = op;
        sizes[i] = size;
        fromReducer[i] = reducer;
        attrs[i] = attr;
        return attr;
    }

    /**
     * Applies a reducer to each arriving element: {@code dst[k] = reduce(dst[k], src[k])}.
     * Serializable (when its reducer is, as {@link Ops} are) so that an engine whose processes live
     * in several JVMs can carry the operator to the destination (the hybrid engine does).
     */
    private record ReducerAsCombiner(Reducer reducer, long size) implements MsgAttr.ElementCombiner, java.io.Serializable {
        @Override
        public void combine(long count, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset) {
            for (long k = 0; k < count; k++) {
                reducer.reduce(1, src, srcOffset + k * size, dst, dstOffset + k * size);
            }
        }
    }
}
