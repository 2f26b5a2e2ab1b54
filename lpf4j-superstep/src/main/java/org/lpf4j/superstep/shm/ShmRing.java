package org.lpf4j.superstep.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A single-producer, single-consumer byte ring over any {@link MemorySegment}: a file mapped by
 * two JVMs of one host, or a segment two threads of one JVM share. The bytes are a stream (no
 * record boundaries: the user's frames, header and payload, go through as they are, a payload
 * larger than the ring in pieces as the consumer frees space). Memory per ring is fixed at
 * creation: {@link #HEADER} bytes of positions and flags, then a power of two of data.
 *
 * <p><b>Layout</b> (native byte order, each field on a 128-byte line of its own so that producer
 * and consumer do not share a cache line or its prefetched neighbour):
 * <pre>
 * offset  field
 *      0  tail: bytes ever written (the producer's, published with release)
 *    128  head: bytes ever read (the consumer's, published with release)
 *    256  consumer waiting: 1 while the consumer may block until bytes come
 *    384  producer waiting: 1 while the producer may block until space frees
 *    512  data (capacity bytes, a power of two)
 * </pre>
 * A producer publishes bytes by a release store of the tail after copying them; the consumer
 * reads the tail with acquire before copying out, so every byte it copies is complete. The
 * consumer frees space the same way through the head.
 *
 * <p><b>Sleeping.</b> The ring itself never blocks. A side that is about to block elsewhere (a
 * selector) sets its waiting flag ({@link #armConsumer}, {@link #armProducer}), then checks the
 * ring again; the other side, after each transfer, tells by the return of {@link #write} or
 * {@link #read} (via {@link #takeConsumerWaiting}/{@link #takeProducerWaiting}) whether it must
 * wake the sleeper by some other means (a byte on a socket). A full fence between the store of a
 * position and the load of the flag, and between the store of the flag and the load of the
 * position, makes a lost wake-up impossible (Dekker's pattern).
 *
 * <p><b>Cost.</b> A transfer is one or two {@link MemorySegment#copy} calls and a few
 * acquire/release accesses; nothing is allocated. Used by one producer thread and one consumer
 * thread at a time (each side's calls are not thread-safe among themselves).
 */
public final class ShmRing {
    /** Bytes before the data: the positions and flags, each on its own line. */
    public static final int HEADER = 512;
    private static final long TAIL = 0, HEAD = 128, CONSUMER_WAITING = 256, PRODUCER_WAITING = 384;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment segment, data;
    private final long capacity, mask;
    /** This side's own position (the producer's tail or the consumer's head), and its last view of the other's. */
    private long mine, theirs;

    private ShmRing(MemorySegment segment, long capacity) {
        this.segment = segment;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.data = segment.asSlice(HEADER, capacity);
    }

    /**
     * @param capacity data bytes wanted: at least 64
     * @return the bytes a ring of {@code capacity} (rounded up to a power of two) takes
     */
    public static long bytesFor(long capacity) { return HEADER + roundUp(capacity); }

    /** @return {@code capacity} rounded up to a power of two, at least 64 */
    public static long roundUp(long capacity) {
        if (capacity < 64 || capacity > (1L << 40)) throw new IllegalArgumentException("ring capacity " + capacity + " not in [64, 2^40]");
        return Long.highestOneBit(capacity - 1) << 1;
    }

    /**
     * The producer's side of the ring at the start of {@code segment} (its first
     * {@link #bytesFor}{@code (capacity)} bytes, 128-byte aligned, zero when the ring is new).
     */
    public static ShmRing producer(MemorySegment segment, long capacity) { return attach(segment, capacity, TAIL); }

    /** The consumer's side of the ring at the start of {@code segment}, as for {@link #producer}. */
    public static ShmRing consumer(MemorySegment segment, long capacity) { return attach(segment, capacity, HEAD); }

    private static ShmRing attach(MemorySegment segment, long capacity, long own) {
        long c = roundUp(capacity);
        if (segment.byteSize() < HEADER + c) {
            throw new IllegalArgumentException("a ring of " + c + " bytes needs " + (HEADER + c) + " bytes, the segment has " + segment.byteSize());
        }
        if (segment.address() % 128 != 0) throw new IllegalArgumentException("ring segment at " + segment.address() + ": not 128-byte aligned");
        ShmRing r = new ShmRing(segment, c);
        r.mine = (long) LONG.getAcquire(segment, own);
        r.theirs = (long) LONG.getAcquire(segment, own == TAIL ? HEAD : TAIL);
        return r;
    }

    /** @return the ring's data bytes (a power of two) */
    public long capacity() { return capacity; }

    // ---- the producer's side ----

    /** @return bytes the producer may write now without waiting (refreshing its view of the consumer's head when it sees none) */
    public long free() {
        long f = capacity - (mine - theirs);
        if (f > 0) return f;
        theirs = (long) LONG.getAcquire(segment, HEAD);
        return capacity - (mine - theirs);
    }

    /**
     * Copies as many of {@code length} bytes at {@code offset} of {@code from} as fit (at once,
     * without waiting) and publishes them.
     *
     * @return the bytes written, 0 to {@code length}
     */
    public long write(MemorySegment from, long offset, long length) {
        long n = Math.min(length, capacity - (mine - theirs));
        if (n < length) {
            theirs = (long) LONG.getAcquire(segment, HEAD);
            n = Math.min(length, capacity - (mine - theirs));
        }
        if (n <= 0) return 0;
        long at = mine & mask, first = Math.min(n, capacity - at);
        MemorySegment.copy(from, offset, data, at, first);
        if (first < n) MemorySegment.copy(from, offset + first, data, 0, n - first);
        mine += n;
        LONG.setRelease(segment, TAIL, mine);
        return n;
    }

    /**
     * After a {@link #write}: whether the consumer said it may block, clearing its flag (so that
     * one wake-up is sent per sleep). Costs a full fence.
     */
    public boolean takeConsumerWaiting() { return take(CONSUMER_WAITING); }

    /** The producer is about to block until space frees: the consumer's next read will say so (then check {@link #free} again). */
    public void armProducer() { arm(PRODUCER_WAITING); }

    /** The producer no longer blocks. */
    public void disarmProducer() { LONG.setOpaque(segment, PRODUCER_WAITING, 0L); }

    // ---- the consumer's side ----

    /** @return bytes the consumer may read now (refreshing its view of the producer's tail when it sees none) */
    public long available() {
        long a = theirs - mine;
        if (a > 0) return a;
        theirs = (long) LONG.getAcquire(segment, TAIL);
        return theirs - mine;
    }

    /**
     * Copies up to {@code length} of the bytes written and not read yet to {@code offset} of
     * {@code into}, freeing their space, without waiting.
     *
     * @return the bytes read, 0 to {@code length}
     */
    public long read(MemorySegment into, long offset, long length) {
        long n = Math.min(length, theirs - mine);
        if (n < length) {
            theirs = (long) LONG.getAcquire(segment, TAIL);
            n = Math.min(length, theirs - mine);
        }
        if (n <= 0) return 0;
        long at = mine & mask, first = Math.min(n, capacity - at);
        MemorySegment.copy(data, at, into, offset, first);
        if (first < n) MemorySegment.copy(data, 0, into, offset + first, n - first);
        mine += n;
        LONG.setRelease(segment, HEAD, mine);
        return n;
    }

    /** After a {@link #read}: whether the producer said it may block, clearing its flag. Costs a full fence. */
    public boolean takeProducerWaiting() { return take(PRODUCER_WAITING); }

    /** The consumer is about to block until bytes come: the producer's next write will say so (then check {@link #available} again). */
    public void armConsumer() { arm(CONSUMER_WAITING); }

    /** The consumer no longer blocks. */
    public void disarmConsumer() { LONG.setOpaque(segment, CONSUMER_WAITING, 0L); }

    private void arm(long flag) {
        LONG.setVolatile(segment, flag, 1L);
        VarHandle.fullFence();
    }

    private boolean take(long flag) {
        VarHandle.fullFence();
        if ((long) LONG.getOpaque(segment, flag) == 0L) return false;
        return (long) LONG.compareAndExchange(segment, flag, 1L, 0L) == 1L;
    }
}
