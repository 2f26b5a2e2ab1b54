package org.lpf4j.spi.kit;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * A socket's input whose reads together wait until one deadline at most, for a handshake with a
 * peer that has not proved itself yet: each read's timeout is what is left of the deadline (never
 * more than the socket's read timeout when this was made, if it had one), so a peer that trickles
 * bytes cannot stretch the wait. Bytes that came in time but that a busy process reads after the
 * deadline are still taken (the caller's frame length bounds them).
 *
 * <p>It changes the socket's read timeout; {@link #restore} sets back the one it found. Not
 * thread-safe. Cost: a clock read and a timeout change per read.
 */
public final class DeadlineInput extends InputStream {
    private final Socket socket;
    private final InputStream in;
    private final long deadline;
    private final int readTimeout;

    /**
     * @param socket   a connected socket in blocking mode
     * @param deadline when to give up, in {@link System#nanoTime()}
     * @throws IOException if the socket cannot give its input or timeout
     */
    public DeadlineInput(Socket socket, long deadline) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.deadline = deadline;
        this.readTimeout = socket.getSoTimeout();
    }

    @Override
    public int read() throws IOException {
        arm();
        return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        arm();
        return in.read(b, off, len);
    }

    /** Sets the socket's read timeout back to what it was when this was made. */
    public void restore() throws IOException { socket.setSoTimeout(readTimeout); }

    private void arm() throws IOException {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left < 1) {
            if (in.available() == 0) throw new SocketTimeoutException("the deadline passed");
            left = 1;
        }
        socket.setSoTimeout((int) Math.min(left, readTimeout > 0 ? readTimeout : Integer.MAX_VALUE));
    }
}
