package org.lpf4j;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Attributes of a {@link Context#put put} or {@link Context#get get} request (the C API's
 * {@code lpf_msg_attr_t}). The core API defines {@link #DEFAULT}: a plain copy whose write
 * conflicts resolve as some serialisation of the requests.
 *
 * <h2>Extension: combining puts</h2>
 * {@link #combining(long, ElementCombiner)} makes the attribute of a put with message-combining
 * semantics (the extension the LPF core specification names "DRMA with message combining
 * semantics"): instead of copying, the destination process applies
 * {@code dst[k] = op(dst[k], src[k])} element by element during the sync that executes the put.
 * It lets a library finish a reduction inside the caller's next sync, without a sync of its own.
 * <ul>
 * <li><b>Order.</b> The combining puts of one superstep into one area are applied in an
 *     unspecified order, one after another (never concurrently), so {@code op} must be
 *     associative and commutative for a deterministic result.</li>
 * <li><b>Overlap.</b> Overlapping plain puts, combining puts and gets into the same bytes end as
 *     some serialisation of the requests, as for plain puts: each request is applied whole,
 *     either before or after each other.</li>
 * <li><b>Cost.</b> The same h-relation as a plain put of the same size, plus the run time of
 *     {@code op} over {@code size / elementSize} elements at the destination. The attribute
 *     itself is an immutable object: make it once and reuse it, then a put allocates nothing.</li>
 * <li><b>Failure.</b> An {@code op} that throws puts the section in the failure state: the sync
 *     throws {@link FatalException} carrying the exception.</li>
 * <li><b>Scope.</b> Only puts take it; a get with a combining attribute, a put whose size is not
 *     a multiple of the element size, or an engine without the extension, throws
 *     {@link IllegalArgumentException} at the call; {@link Context#supports}
 *     ({@link Capability#COMBINING_PUTS}) tells whether an engine has it.</li>
 * </ul>
 */
public final class MsgAttr {
    /** Plain DRMA semantics (the C API's {@code LPF_MSG_DEFAULT}). */
    public static final MsgAttr DEFAULT = new MsgAttr("default", 1, null);

    private final String name;
    private final long elementSize;
    private final ElementCombiner combiner;

    private MsgAttr(String name, long elementSize, ElementCombiner combiner) {
        this.name = name;
        this.elementSize = elementSize;
        this.combiner = combiner;
    }

    /**
     * An element-wise reduction applied by the destination of a combining put during the sync:
     * {@code dst[k] = op(dst[k], src[k])} for {@code k < count}, elements of the attribute's
     * element size laid out contiguously from the given offsets. Must be associative and
     * commutative; must not touch any other memory and must not call the LPF API.
     */
    @FunctionalInterface
    public interface ElementCombiner {
        /**
         * Combines {@code count} elements of {@code src} into {@code dst}.
         *
         * @param count     the number of elements (≥ 1)
         * @param src       the arriving data (read only)
         * @param srcOffset byte offset of the first arriving element
         * @param dst       the destination area, updated in place
         * @param dstOffset byte offset of the first destination element
         */
        void combine(long count, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset);
    }

    /**
     * A combining-put attribute: see the class comment. Costs one small allocation; reuse it.
     *
     * @param elementSize the size in bytes of one element, ≥ 1; a put's size must be a multiple
     * @param op          the element-wise operator, associative and commutative
     * @return the attribute
     * @throws IllegalArgumentException if {@code elementSize < 1}
     * @throws NullPointerException     if {@code op} is null
     */
    public static MsgAttr combining(long elementSize, ElementCombiner op) {
        Objects.requireNonNull(op, "MsgAttr.combining: op");
        if (elementSize < 1) {
            throw new IllegalArgumentException("MsgAttr.combining(elementSize=" + elementSize + "): must be at least 1");
        }
        return new MsgAttr("combining(" + elementSize + " B, " + op + ")", elementSize, op);
    }

    /** @return whether this attribute makes a put combining instead of copying */
    public boolean isCombining() { return combiner != null; }

    /** @return the element size in bytes of a combining attribute; 1 for {@link #DEFAULT} */
    public long elementSize() { return elementSize; }

    /** @return the operator of a combining attribute, or null for {@link #DEFAULT} */
    public ElementCombiner combiner() { return combiner; }

    @Override
    public String toString() { return "MsgAttr." + name; }
}
