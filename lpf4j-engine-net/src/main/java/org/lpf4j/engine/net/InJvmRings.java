package org.lpf4j.engine.net;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How much of this JVM's direct memory ({@code -XX:MaxDirectMemorySize}, which {@code Arena}
 * allocations count against) the rings between its own ranks may take ({@link LocalPeers}): the
 * limit less the buffers every mesh of this JVM could need (each registers {@link #bufferBytes}
 * for its p − 1 peers: every connection has its buffers, with rings or without) and less a
 * sixteenth for the JDK's own temporary buffers. Without it, the rings of a JVM with many ranks
 * took the whole limit, and the connections made after them found no memory for their buffers.
 *
 * <p>A pair's rings are leased to both its ends and return to the budget when both meshes have
 * ended ({@link Lease#drop}); the memory itself is freed by the garbage collector after that, which
 * the JVM's own reservation waits for when it needs the room.
 *
 * <p>Cost: one monitor per ring set allocated or returned, per mesh opened or ended; the limit is
 * read once per JVM. Thread-safe.
 */
final class InJvmRings {
    /** This JVM's budget. */
    static InJvmRings jvm() { return Jvm.BUDGET; }

    private final long limit;
    private long rings, buffers;

    /** @param limit the JVM's direct memory in bytes */
    InJvmRings(long limit) { this.limit = limit; }

    /** @return the buffers a process of a {@code size}-process mesh holds at most: two connections per peer, two buffers each ({@link Conn#buffers}) */
    static long bufferBytes(int size) {
        return (size - 1L) * 2 * 2 * Mesh.bufferBytes(NetParameters.BUFFER_PROCESS_BYTES.get(), size);
    }

    /** A mesh of this JVM that may have rings here opened: its buffers are kept out of the rings' share. */
    synchronized void reserveBuffers(long bytes) { buffers += bytes; }

    /** That mesh ended. */
    synchronized void releaseBuffers(long bytes) { buffers -= bytes; }

    /** @return the bytes rings may still take */
    synchronized long available() { return limit - limit / 16 - buffers - rings; }

    /** @return a lease of {@code bytes} for a pair's rings, or null: they do not fit in the share left */
    synchronized Lease take(long bytes) {
        if (bytes > available()) return null;
        rings += bytes;
        return new Lease(bytes);
    }

    private synchronized void giveBack(long bytes) { rings -= bytes; }

    /** @return what the budget holds now, for a message */
    synchronized String describe() {
        return "rings of this JVM " + rings + " bytes, buffers kept for its meshes' connections " + buffers + " of a limit of " + limit;
    }

    /** A pair's rings in the budget, held by both its ends. */
    final class Lease {
        private final long bytes;
        private final AtomicInteger holders = new AtomicInteger(2);

        private Lease(long bytes) { this.bytes = bytes; }

        /** One end is done with the rings; the second returns them to the budget. */
        void drop() {
            if (holders.decrementAndGet() == 0) giveBack(bytes);
        }

        /** The rings were never made: the lease goes back to the budget at once, for both ends. */
        void cancel() {
            if (holders.getAndSet(0) > 0) giveBack(bytes);
        }
    }

    /** Read on first use: the management beans cost a little start-up that JVMs without in-JVM rings do not pay. */
    private static final class Jvm {
        static final InJvmRings BUDGET = new InJvmRings(maxDirectMemory());
    }

    /** @return {@code -XX:MaxDirectMemorySize}, or the heap's maximum where it is not set (the JVM's default) */
    static long maxDirectMemory() {
        try {
            long set = Long.parseLong(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .getVMOption("MaxDirectMemorySize").getValue());
            if (set > 0) return set;
        } catch (RuntimeException | LinkageError e) {
            // a JVM without the HotSpot bean or option: the default below
        }
        return Runtime.getRuntime().maxMemory();
    }
}
