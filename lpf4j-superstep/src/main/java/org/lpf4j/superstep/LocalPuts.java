package org.lpf4j.superstep;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The sources of the puts a rank makes to itself in one sync ({@link PackedHeader#PUT_LOCAL}), in
 * the order {@link Packer} packed their headers into the rank's stream to itself, so that
 * {@link Delivery} copies each once, from its source to its destination, instead of through the
 * stream. Reading the source when the put is applied is allowed: a pattern in which a put's source
 * is another request's destination is illegal (LPF core API, "Unbuffered Remote Direct Memory
 * Access"). A null source is one whose memory was freed before the sync: its destination gets zeros.
 *
 * <p>Cost: O(1) per put; the arrays grow by doubling and are kept from sync to sync. Used by the
 * rank's exchanging thread only.
 */
final class LocalPuts {
    private MemorySegment[] source = new MemorySegment[16];
    private long[] sourceOffset = new long[16];
    /** Puts listed in this sync. */
    private int count;
    /** The next put {@link Delivery} takes. */
    private int next;

    /** Starts a sync's list (and drops the previous sync's references to user memory). */
    void clear() {
        Arrays.fill(source, 0, count, null);
        count = 0;
        next = 0;
    }

    /** Lists the next put's source ({@code null}: freed memory, whose put writes zeros). */
    void add(MemorySegment from, long offset) {
        if (count == source.length) {
            source = Arrays.copyOf(source, count * 2);
            sourceOffset = Arrays.copyOf(sourceOffset, count * 2);
        }
        source[count] = from;
        sourceOffset[count++] = offset;
    }

    /** @return the index of the next put in stream order, for {@link #source} and {@link #offset} */
    int take() {
        if (next == count) throw new IllegalStateException("the stream to itself has more local puts than were listed (" + count + ")");
        return next++;
    }

    /** @return the source of put {@code k} (null: its memory was freed) */
    MemorySegment source(int k) { return source[k]; }

    /** @return the offset of put {@code k} in its source */
    long offset(int k) { return sourceOffset[k]; }
}
