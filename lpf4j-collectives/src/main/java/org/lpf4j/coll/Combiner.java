package org.lpf4j.coll;

import org.lpf4j.MsgAttr;

import java.lang.foreign.MemorySegment;

/**
 * How {@link Collectives#combine combine} and {@link Collectives#allcombine allcombine} combine
 * one array into another element by element (the C API's {@code lpf_combiner_t}):
 * {@code into[k] = into[k] ⊕ from[k]} for {@code k < n}.
 *
 * <p>The library may cut the arrays into pieces and call it once per piece, in any order, at the
 * process that receives data and during the sync that delivers it; so ⊕ must be associative and
 * commutative for a deterministic result. {@code n} counts elements, not bytes (unless the
 * elements are single bytes). It must not touch other memory and must not call the LPF API; an
 * exception it throws puts the SPMD section in the failure state. A combiner is used directly as
 * the operator of a combining put ({@link MsgAttr#combining}).
 *
 * <p>It is {@link java.io.Serializable} because multi-process engines (MPI) ship the operator of a
 * combining put to the process that applies it: a lambda or a named class whose captured values
 * serialize works everywhere.
 */
@FunctionalInterface
public interface Combiner extends MsgAttr.ElementCombiner, java.io.Serializable {
    /**
     * Combines {@code n} elements of {@code from} into {@code into}.
     *
     * @param n          the number of elements in both pieces (≥ 1)
     * @param from       the data to combine in (read only)
     * @param fromOffset byte offset of the first element of {@code from}
     * @param into       the array combined into, updated in place
     * @param intoOffset byte offset of the first element of {@code into}
     */
    @Override
    void combine(long n, MemorySegment from, long fromOffset, MemorySegment into, long intoOffset);
}
