package org.lpf4j.engine.net;

import org.lpf4j.spi.kit.DeadlineInput;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/** Blocking reads and writes of a connection while the mesh is set up, bounded by the socket's read timeout. */
final class Io {
    private Io() {}

    /**
     * Reads exactly {@code n} bytes (the channel in blocking mode; its socket's {@code SO_TIMEOUT}
     * bounds every read).
     *
     * @return them, big-endian, positioned at 0
     * @throws EOFException if the peer closed the connection first
     * @throws java.net.SocketTimeoutException if the peer went quiet for longer than the timeout
     */
    static ByteBuffer readFully(SocketChannel ch, int n) throws IOException { return readFully(ch, n, Long.MAX_VALUE); }

    /**
     * Reads exactly {@code n} bytes by {@code deadlineNanos} ({@link System#nanoTime}) at the
     * latest, whatever the socket's read timeout: a peer that sends a byte now and then cannot
     * stretch it.
     *
     * @param deadlineNanos when to give up; {@link Long#MAX_VALUE}: only the socket's read timeout bounds each read
     * @throws java.net.SocketTimeoutException if the bytes did not all come in time
     */
    static ByteBuffer readFully(SocketChannel ch, int n, long deadlineNanos) throws IOException {
        if (deadlineNanos == Long.MAX_VALUE) return readFully(ch.socket().getInputStream(), n);
        DeadlineInput in = new DeadlineInput(ch.socket(), deadlineNanos);
        try {
            return readFully(in, n);
        } finally {
            in.restore(); // the reads after this one get their whole timeout
        }
    }

    private static ByteBuffer readFully(InputStream in, int n) throws IOException {
        byte[] b = new byte[n];
        for (int at = 0; at < n; ) {
            int r = in.read(b, at, n - at);
            if (r < 0) throw new EOFException("the peer closed the connection after " + at + " of " + n + " bytes");
            at += r;
        }
        return ByteBuffer.wrap(b).order(ByteOrder.BIG_ENDIAN);
    }

    /** Writes all of {@code b} (the channel in blocking mode). */
    static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) ch.write(b);
    }
}
