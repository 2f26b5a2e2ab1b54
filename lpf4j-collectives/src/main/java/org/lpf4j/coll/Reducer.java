package org.lpf4j.coll;

import java.lang.foreign.MemorySegment;

/**
 * How {@link Collectives#reduce reduce} and {@link Collectives#allreduce allreduce} fold an array
 * of elements into one value (the C API's {@code lpf_reducer_t}). Elements are the
 * {@code size}-byte objects the operation was called with, laid out contiguously.
 *
 * <p>The library calls it with {@code n = 1} whenever an element arrives, at the process that
 * receives it and during the sync that delivers it, so {@code value = value ⊕ array[0]} must be an
 * associative and commutative operation for a deterministic result. It must not touch other
 * memory and must not call the LPF API; an exception it throws puts the SPMD section in the
 * failure state. Its run time is part of the sync that applies it.
 *
 * <p>It is {@link java.io.Serializable} because multi-process engines (MPI) ship the operator of a
 * combining put to the process that applies it: a lambda or a named class whose captured values
 * serialize works everywhere.
 */
@FunctionalInterface
public interface Reducer extends java.io.Serializable {
    /**
     * Folds {@code n} elements into {@code value}, which holds an initial value at entry.
     *
     * @param n           the number of elements in {@code array} (≥ 1)
     * @param array       the elements to fold in (read only)
     * @param arrayOffset byte offset of the first element in {@code array}
     * @param value       the running value, updated in place
     * @param valueOffset byte offset of the value in {@code value}
     */
    void reduce(long n, MemorySegment array, long arrayOffset, MemorySegment value, long valueOffset);
}
