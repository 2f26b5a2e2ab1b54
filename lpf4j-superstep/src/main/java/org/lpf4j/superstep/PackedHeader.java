package org.lpf4j.superstep;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * The one record layout of the packed stream a rank sends another in a superstep (see
 * {@link Exchange}): a header per request, each followed by its inline payload, if any, padded to
 * 8 bytes.
 *
 * <pre>
 *   0               4               8               12              16                              24                              32
 *   +---------------+---------------+---------------+---------------+-------------------------------+-------------------------------+
 *   | kind | attr+1 | source local  | target local  | slot          | offset                        | size                          |
 *   +---------------+---------------+---------------+---------------+-------------------------------+-------------------------------+
 *   kind (low byte):  PUT_INLINE  payload follows (pad(size) bytes)
 *                     PUT_LARGE   payload travels as a message of its own (TAG_LARGE), in stream order
 *                     GET         the reply (size bytes) travels back in the reply stream, in stream order
 *                     DEFINE      a combining operator, serialized, follows (pad(size) bytes); slot = its id
 *                     PUT_LOCAL   a plain put to this rank itself, only in its stream to itself: no payload,
 *                                 the source is the next one {@link LocalPuts} lists
 *   attr+1 (upper 24 bits): the sender's id of a combining put's attribute, plus one; 0 for a plain put
 *   source local:     the requesting process, as a local index on the sending rank
 *   target local:     the process the request addresses, as a local index on the receiving rank
 *   offset:           the destination offset of a put, the source offset of a get
 * </pre>
 *
 * Byte order is the platform's (both ends are JVMs of one job on one architecture).
 */
final class PackedHeader {
    private PackedHeader() {}

    static final int PUT_INLINE = 1, PUT_LARGE = 2, GET = 3, DEFINE = 4, PUT_LOCAL = 5;
    /** Bytes of one header. */
    static final int LENGTH = 32;
    static final int KIND_OFFSET = 0, SOURCE_LOCAL_OFFSET = 4, TARGET_LOCAL_OFFSET = 8, SLOT_OFFSET = 12,
            OFFSET_OFFSET = 16, SIZE_OFFSET = 24;
    private static final int KIND_MASK = 0xff;

    /** @return {@code n} rounded up to a multiple of 8 (payloads keep the next header aligned) */
    static long pad(long n) { return (n + 7) & ~7L; }

    /** Writes a header at {@code at}. @param attr the attribute id, -1 for none */
    static void write(MemorySegment out, long at, int kind, int attr, int sourceLocal, int targetLocal, int slot,
                      long offset, long size) {
        out.set(JAVA_INT_UNALIGNED, at + KIND_OFFSET, kind | ((attr + 1) << 8));
        out.set(JAVA_INT_UNALIGNED, at + SOURCE_LOCAL_OFFSET, sourceLocal);
        out.set(JAVA_INT_UNALIGNED, at + TARGET_LOCAL_OFFSET, targetLocal);
        out.set(JAVA_INT_UNALIGNED, at + SLOT_OFFSET, slot);
        out.set(JAVA_LONG_UNALIGNED, at + OFFSET_OFFSET, offset);
        out.set(JAVA_LONG_UNALIGNED, at + SIZE_OFFSET, size);
    }

    static int kind(MemorySegment in, long at) { return in.get(JAVA_INT_UNALIGNED, at + KIND_OFFSET) & KIND_MASK; }

    /** @return the attribute id, -1 for a plain put */
    static int attr(MemorySegment in, long at) { return (in.get(JAVA_INT_UNALIGNED, at + KIND_OFFSET) >>> 8) - 1; }

    static int sourceLocal(MemorySegment in, long at) { return in.get(JAVA_INT_UNALIGNED, at + SOURCE_LOCAL_OFFSET); }

    static int targetLocal(MemorySegment in, long at) { return in.get(JAVA_INT_UNALIGNED, at + TARGET_LOCAL_OFFSET); }

    static int slot(MemorySegment in, long at) { return in.get(JAVA_INT_UNALIGNED, at + SLOT_OFFSET); }

    static long offset(MemorySegment in, long at) { return in.get(JAVA_LONG_UNALIGNED, at + OFFSET_OFFSET); }

    static long size(MemorySegment in, long at) { return in.get(JAVA_LONG_UNALIGNED, at + SIZE_OFFSET); }

    /** @return the bytes a record with this header takes in the stream (header and inline payload) */
    static long recordBytes(MemorySegment in, long at) {
        int kind = kind(in, at);
        return LENGTH + (kind == PUT_INLINE || kind == DEFINE ? pad(size(in, at)) : 0);
    }
}
