package org.lpf4j.engine.net;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * The state of one connection with a peer: what is being read from it, and what waits to be
 * written to it. Holds two direct buffers of {@link Mesh#bufferBytes} each, made
 * when a frame is first staged for it or its socket arrives ({@link #buffers}): a peer has two connections,
 * and most pairs of a large job use one or none.
 */
final class Conn {
    final Peer peer;
    /** The peer's rank. */
    final int rank;
    /** Null until the connection is made (frames sent before are staged and written then). */
    SocketChannel channel;
    SelectionKey key;
    /** Bytes read from the socket and not parsed yet: [inStart, inEnd) of {@link #in}. */
    ByteBuffer inBuffer;
    MemorySegment in;
    int inStart, inEnd;
    /** The frame being read: its receive, or its stash (neither while it is parked). */
    Op readOp;
    Stash readStash;
    long readLength, readDone;
    boolean inFrame;
    /**
     * The frame being read is a large put's payload whose receive is not posted yet: reading
     * from this connection waits until it is, so that the payload goes straight to its receive.
     */
    boolean parked;
    int parkedChannel, parkedSection;
    /** Frames staged for the socket and not written yet: [outStart, outEnd) of {@link #out}. */
    ByteBuffer outBuffer;
    MemorySegment out;
    int outStart, outEnd;
    /** The send whose header is the last staged bytes and whose payload goes from its own memory after them. */
    Op largeOp;
    /** The gathering write of the staged bytes and a large payload. */
    final ByteBuffer[] gather = new ByteBuffer[2];
    /** Sends not staged yet, in order. */
    Op sendHead, sendTail;
    /** Whether frames were staged since the last write: the next wait writes them. */
    boolean dirty;
    boolean saidBye;
    /** Whether frames are staged on it while its socket is being made (counted in {@link ConnTable#held}). */
    boolean held;
    /** The rings that carry this connection's frames when the peer shares this host (the socket then carries wake-ups), or null. */
    ShmLink link;
    /** The peer closed a linked connection's socket: it has ended once its ring is read. */
    boolean eof;

    Conn(Peer peer) {
        this.peer = peer;
        this.rank = peer.rank;
    }

    /** Makes the buffers unless a staged frame or the socket's arrival made them already. */
    void buffers(int bytes) {
        if (inBuffer != null) return;
        ByteBuffer made = ByteBuffer.allocateDirect(bytes);
        outBuffer = ByteBuffer.allocateDirect(bytes); // first: if the JVM refuses it, the connection has neither
        out = MemorySegment.ofBuffer(outBuffer);
        inBuffer = made;
        in = MemorySegment.ofBuffer(inBuffer);
    }

    boolean writing() { return outEnd > outStart || largeOp != null || sendHead != null; }

    void close() { if (channel != null) Mesh.closeQuietly(channel); }
}
