package org.lpf4j.engine.net;

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
        byte[] b = new byte[n];
        InputStream in = ch.socket().getInputStream();
        int at = 0, readTimeout = ch.socket().getSoTimeout();
        try {
            while (at < n) {
                if (deadlineNanos != Long.MAX_VALUE) {
                    long left = (deadlineNanos - System.nanoTime()) / 1_000_000;
                    if (left <= 0) throw new java.net.SocketTimeoutException(at + " of " + n + " bytes came in the time allowed");
                    ch.socket().setSoTimeout((int) Math.min(left, readTimeout > 0 ? readTimeout : Integer.MAX_VALUE));
                }
                int r = in.read(b, at, n - at);
                if (r < 0) throw new EOFException("the peer closed the connection after " + at + " of " + n + " bytes");
                at += r;
            }
        } finally {
            if (deadlineNanos != Long.MAX_VALUE) ch.socket().setSoTimeout(readTimeout); // the reads after this one get theirs whole
        }
        return ByteBuffer.wrap(b).order(ByteOrder.BIG_ENDIAN);
    }

    /** Writes all of {@code b} (the channel in blocking mode). */
    static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) ch.write(b);
    }
}
