package org.lpf4j.engine.net;

import org.lpf4j.superstep.shm.ShmRing;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * One connection of the mesh with a peer proven to share this host ({@link LocalPeers}): its
 * frames, the same bytes the socket would carry, go through shared-memory rings instead, one per
 * direction it is used in (a main connection two, the higher rank's large connection one). The connection's socket stays open and carries only wake-ups (one byte
 * when the other side said it would block, {@link ShmRing}'s flags) and the end of the peer: a JVM
 * that dies closes it, which the mesh sees as for any connection.
 *
 * <p>Cost: a write or read is the ring's copy and, only when the other side sleeps, one socket
 * write. Used by the mesh's one thread at a time; allocates nothing after construction. The rings' memory is the mesh's
 * ({@link LocalPeers#end}): a file's mapping lives until the mesh ends, rings in this JVM's memory until both ends drop them.
 */
final class ShmLink {
    /** The ring this process writes to, or null if this connection carries nothing this way. */
    final ShmRing out;
    /** The ring this process reads from, or null if this connection carries nothing this way. */
    final ShmRing in;
    private final SocketChannel socket;
    /** The peer's process id, and whether this process may read the peer's memory, and the peer this one's ({@link SingleCopy#probe}). */
    long peerPid;
    boolean readsPeer, peerReads;
    /** Whether the rings are in this JVM's memory (a peer of the same JVM), not in a mapped file. */
    private final boolean inJvm;
    private final ByteBuffer bell = ByteBuffer.allocateDirect(1);
    private final ByteBuffer drained = ByteBuffer.allocateDirect(64);

    ShmLink(ShmRing out, ShmRing in, SocketChannel socket, boolean inJvm) {
        this.out = out;
        this.in = in;
        this.socket = socket;
        this.inJvm = inJvm;
    }

    /**
     * Writes as much as fits of {@code aLength} bytes of {@code a}, then (all of those written)
     * of {@code bLength} bytes of {@code b}, as a gathering write would; wakes the peer if it
     * sleeps.
     *
     * @return the bytes written
     */
    long write(MemorySegment a, long aOffset, long aLength, MemorySegment b, long bOffset, long bLength) {
        long n = aLength == 0 ? 0 : out.write(a, aOffset, aLength);
        if (n == aLength && bLength > 0) n += out.write(b, bOffset, bLength);
        if (n > 0 && out.takeConsumerWaiting()) ring();
        return n;
    }

    /** Reads up to {@code length} bytes into {@code offset} of {@code into}; wakes the peer if it sleeps for space. @return the bytes read */
    int read(MemorySegment into, long offset, long length) {
        int n = (int) in.read(into, offset, length);
        if (n > 0 && in.takeProducerWaiting()) ring();
        return n;
    }

    /** @return whether bytes wait to be read */
    boolean readable() { return in != null && in.available() > 0; }

    /** @return whether some bytes could be written now */
    boolean writable() { return out != null && out.free() > 0; }

    /** This process is about to block: the peer's next write (and, if {@code writing}, its next read) wakes it. */
    void arm(boolean writing) {
        if (in != null) in.armConsumer();
        if (writing && out != null) out.armProducer();
    }

    /** This process is awake again. */
    void disarm() {
        if (in != null) in.disarmConsumer();
        if (out != null) out.disarmProducer();
    }

    /** Reads the wake-ups that came on the socket. @return false if the peer closed it (its end or its death) */
    boolean drainWakeUps() throws IOException {
        while (true) {
            drained.clear();
            int n = socket.read(drained);
            if (n < 0) return false;
            if (n < drained.capacity()) return true;
        }
    }

    /** Wakes the peer: one byte on the socket (none if its buffer is full: wake-ups are already waiting there). */
    private void ring() {
        bell.clear();
        try {
            socket.write(bell);
        } catch (IOException e) {
            // the peer is gone: its socket's end tells the mesh
        }
    }

    /** @return whether the rings are in this JVM's memory (a peer of the same JVM), not in a shared-memory file */
    boolean inJvm() { return inJvm; }
}
