package org.lpf4j.boot.tcp;

import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.FenceCoordinator;
import org.lpf4j.spi.kit.DeadlineInput;
import org.lpf4j.spi.kit.JobHandshake;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rendezvous point of a {@code tcp} job: accepts one connection per rank, checks that each
 * proves it holds the job key (see {@link Wire}), and runs a {@link FenceCoordinator} over them.
 * Rank 0 hosts it by default; a launcher may run it instead ({@code lpf boot-test} does).
 *
 * <p>A connection that fails the handshake (no or wrong key, wrong job size, a rank taken or out
 * of range, a malformed or oversized frame) is closed and logged at WARNING through
 * {@link System.Logger}; nothing it sent is used. A member whose connection ends without a
 * goodbye, or that sends a malformed message, is reported {@linkplain FenceCoordinator#leave gone}.
 *
 * <p><b>What an unauthenticated peer can cost.</b> At most {@value #MAX_HANDSHAKES} accepted
 * connections are in their handshake at once; a connection accepted beyond that is closed at once
 * (counted as refused; the first of a run is logged), and a session so refused connects again
 * until its connect timeout. A connection in its handshake holds a socket, a virtual thread, its
 * 41-byte CHALLENGE and, read unbuffered, at most one frame of {@value Wire#HANDSHAKE_LIMIT} bytes,
 * for at most {@value Wire#HANDSHAKE_MILLIS} ms from its accept to its whole HELLO (one deadline
 * for all its reads, not one per read): about 12 KiB of heap in all. So all peers together, however
 * many connections they open, hold under 1 MiB of the coordinator's heap (0.75 MiB measured with
 * every slot held by a peer that announced a 4 KiB HELLO) and {@value #MAX_HANDSHAKES} virtual
 * threads, and silent ones hold the slots no longer than that deadline before members get them.
 * Only a member that proved the job key gets its 64 KiB read buffer and its writer thread.
 *
 * <p>Threads: one platform thread accepts; each connection has a virtual reader thread and, once
 * authenticated, a virtual writer thread draining its queue, so a slow reader never blocks the
 * coordinator.
 */
public final class TcpCoordinator implements AutoCloseable {
    private static final byte[] CLOSE = new byte[0];
    /**
     * Connections in their handshake at once (accepted, not yet authenticated or refused); more are
     * closed as they are accepted. A job's members connect once each: 64 let a job of any size in
     * at the pace its JVMs start, and bound what unauthenticated peers hold (see the class comment).
     */
    static final int MAX_HANDSHAKES = 64;

    private final int size;
    private final byte[] key;
    private final int maxFrame;
    private final System.Logger log;
    private final FenceCoordinator fences;
    private final ServerSocket server;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger refused = new AtomicInteger();
    /** Accepted connections whose handshake is under way (at most {@link #MAX_HANDSHAKES}). */
    private final AtomicInteger handshaking = new AtomicInteger();
    /** Whether a connection was refused for want of a handshake slot since one was last given (acceptor thread only). */
    private boolean full;
    private final AtomicLong received = new AtomicLong(), sent = new AtomicLong();
    private final Thread acceptor;
    private volatile boolean closed;
    /** The last collect-data result encoded (by identity) and its frames: every participant gets the same ones. */
    private Map<Integer, Map<String, byte[]>> lastData;
    private List<byte[]> lastFrames;

    /**
     * Binds and starts accepting.
     *
     * @param bind     the address to listen on (port 0: any free port)
     * @param size     the number of ranks of the job
     * @param key      the job key
     * @param maxFrame the largest frame accepted from an authenticated member
     * @param log      where refused connections are reported
     * @throws IOException if the address cannot be bound
     */
    public TcpCoordinator(InetSocketAddress bind, int size, byte[] key, int maxFrame, System.Logger log) throws IOException {
        if (key.length == 0) throw new IllegalArgumentException("TcpCoordinator: empty job key");
        this.size = size;
        this.key = key.clone();
        this.maxFrame = maxFrame;
        this.log = log;
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(bind, Math.max(50, 2 * size));
        this.fences = new FenceCoordinator("tcp job at " + address(), size);
        JobHandshake.nonce(); // the nonce source starts now, not within a connection's deadline
        this.acceptor = new Thread(this::accept, "lpf-boot-tcp-accept " + address());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return the address it listens on (with the actual port) */
    public InetSocketAddress address() {
        return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    /** @return how many connections were refused so far (failed handshakes, and those closed for want of a handshake slot) */
    public int refusedConnections() { return refused.get(); }

    /** @return the accepted connections whose handshake is under way now (at most {@link #MAX_HANDSHAKES}) */
    int handshakesUnderWay() { return handshaking.get(); }

    /**
     * @return the members' frames handled so far after their handshakes (COMMIT, FENCE, GET, BYE):
     *         a job's start-up costs its host a constant number per member (the net engine's: one
     *         commit, one fence, one goodbye), none that grows with the job
     */
    public long framesReceived() { return received.get(); }

    /** @return the frames queued to members so far after their handshakes (DATA, FENCE_OK, FENCE_FAIL, VALUE) */
    public long framesSent() { return sent.get(); }

    /** @return whether every rank of the job joined and left again */
    public boolean finished() { return fences.allLeft(); }

    private void accept() {
        while (!closed) {
            try {
                Socket s = server.accept();
                if (handshaking.get() >= MAX_HANDSHAKES) { // only this thread adds: the count never passes the cap
                    turnAway(s);
                    continue;
                }
                handshaking.incrementAndGet();
                full = false;
                Thread.ofVirtual().name("lpf-boot-tcp-conn").start(() -> serve(s));
            } catch (IOException e) {
                if (closed) return;
                log.log(System.Logger.Level.WARNING, "boot tcp coordinator " + address() + ": accept failed: " + e);
                try {
                    Thread.sleep(100); // e.g. out of file descriptors: do not spin
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** Closes a connection accepted while {@link #MAX_HANDSHAKES} are under way; logs the first of a run only. */
    private void turnAway(Socket s) {
        refused.incrementAndGet();
        if (!full) {
            full = true;
            log.log(System.Logger.Level.WARNING, "boot tcp coordinator " + address() + ": " + MAX_HANDSHAKES
                    + " handshakes under way: closing further connections (from " + s.getRemoteSocketAddress()
                    + " on) until one ends; members connect again");
        }
        closeQuietly(s);
    }

    private void refuse(Socket s, String why) {
        refused.incrementAndGet();
        log.log(System.Logger.Level.WARNING, "boot tcp coordinator " + address() + ": refused connection from "
                + s.getRemoteSocketAddress() + ": " + why);
        closeQuietly(s);
    }

    private void serve(Socket s) {
        SocketAddress peer = s.getRemoteSocketAddress();
        Connection c;
        try {
            c = handshake(s);
        } finally {
            handshaking.decrementAndGet();
        }
        if (c == null) return;
        int rank = c.rank;
        String why = "lost its connection (process died?)";
        try {
            s.setSoTimeout(0);
            // Only a member that proved the job key gets the large buffer.
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 16));
            while (true) {
                Wire.Frame f = Wire.read(in, maxFrame);
                if (f == null) break;
                received.incrementAndGet();
                if (!handle(c, f)) {
                    why = "closed its session";
                    break;
                }
            }
        } catch (Wire.ProtocolException e) {
            why = "sent a malformed message (" + e.getMessage() + ")";
            log.log(System.Logger.Level.WARNING, "boot tcp coordinator " + address() + ": rank " + rank + " from " + peer
                    + " sent a malformed message, closing its connection: " + e.getMessage());
        } catch (IOException e) {
            if (closed) return;
        } finally {
            fences.leave(rank, why);
            c.close();
            connections.remove(c);
        }
    }

    /**
     * Runs the handshake of an accepted connection: reads unbuffered, all reads together within
     * {@link Wire#HANDSHAKE_MILLIS} of now.
     *
     * @return the member's connection, joined to the fences; null if refused (the socket is closed)
     */
    private Connection handshake(Socket s) {
        try {
            s.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new DeadlineInput(s, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Wire.HANDSHAKE_MILLIS)));
            OutputStream out = s.getOutputStream();
            byte[] sn = JobHandshake.nonce();
            out.write(new Wire.Builder(Wire.CHALLENGE, 40).i32(Wire.VERSION).bytes(sn).build());
            out.flush();
            Wire.Frame hello = Wire.read(in, Wire.HANDSHAKE_LIMIT);
            if (hello == null) {
                refuse(s, "closed before the handshake");
                return null;
            }
            if (hello.type() != Wire.HELLO) {
                refuse(s, "expected HELLO, got message type " + hello.type());
                return null;
            }
            ByteBuffer p = hello.payload();
            int version = Wire.i32(p);
            int rank = Wire.i32(p);
            int jobSize = Wire.i32(p);
            byte[] cn = Wire.fixed(p, Wire.NONCE);
            byte[] mac = Wire.fixed(p, JobHandshake.PROOF);
            Wire.end(p);
            if (version != Wire.VERSION) {
                refuse(s, "protocol version " + version + ", this coordinator speaks " + Wire.VERSION);
                return null;
            }
            if (!Wire.PROOFS.provesHello(mac, key, sn, cn, JobHandshake.claims(rank, jobSize))) {
                refuse(s, "wrong job key (authentication failed)");
                return null;
            }
            if (jobSize != size || rank < 0 || rank >= size) {
                refuse(s, "claims rank " + rank + " of " + jobSize + ", this job has " + size + " ranks");
                return null;
            }
            Connection c = new Connection(s, rank);
            synchronized (fences) {
                if (fences.joined(rank)) {
                    refuse(s, "rank " + rank + " has joined already");
                    return null;
                }
                out.write(new Wire.Builder(Wire.WELCOME, 32).bytes(Wire.PROOFS.welcome(key, cn, sn, Wire.NO_CLAIMS)).build());
                out.flush();
                fences.join(rank, c);
            }
            connections.add(c);
            c.writer.start();
            return c;
        } catch (SocketTimeoutException e) {
            refuse(s, "no whole HELLO within " + Wire.HANDSHAKE_MILLIS + " ms of its connection");
            return null;
        } catch (IOException e) {
            refuse(s, "handshake failed: " + e.getMessage());
            return null;
        }
    }

    /** @return false on BYE */
    private boolean handle(Connection c, Wire.Frame f) throws IOException {
        ByteBuffer p = f.payload();
        switch (f.type()) {
            case Wire.COMMIT -> fences.commit(c.rank, Wire.readEntries(p));
            case Wire.FENCE -> {
                long seq = Wire.i64(p);
                long instance = Wire.i64(p);
                boolean collect = Wire.u8(p) != 0;
                long timeout = Wire.i64(p);
                int[] ranks = Wire.readRanks(p, size);
                Wire.end(p);
                if (timeout < 1) throw new Wire.ProtocolException("fence timeout " + timeout);
                fences.arrive(c.rank, seq, instance, ranks, collect, timeout);
            }
            case Wire.GET -> {
                long id = Wire.i64(p);
                int owner = Wire.i32(p);
                long timeout = Wire.i64(p);
                String k = Wire.string(p, 4 * 511);
                Wire.end(p);
                if (owner < 0 || owner >= size || timeout < 0) throw new Wire.ProtocolException("GET of rank " + owner);
                Thread.ofVirtual().start(() -> {
                    byte[] v = fences.value(owner, k, TimeUnit.MILLISECONDS.toNanos(timeout));
                    Wire.Builder b = new Wire.Builder(Wire.VALUE, 16 + (v == null ? 0 : v.length)).i64(id).u8(v == null ? 0 : 1);
                    c.send(b.blob(v == null ? new byte[0] : v).build());
                });
            }
            case Wire.BYE -> {
                Wire.end(p);
                return false;
            }
            default -> throw new Wire.ProtocolException("unknown message type " + f.type());
        }
        return true;
    }

    /** One member's connection: its answers are queued and written by its own writer thread. */
    private final class Connection implements FenceCoordinator.Participant {
        final Socket socket;
        final int rank;
        final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();
        final Thread writer;

        Connection(Socket socket, int rank) {
            this.socket = socket;
            this.rank = rank;
            this.writer = Thread.ofVirtual().name("lpf-boot-tcp-writer " + rank).unstarted(this::drain);
        }

        void send(byte[] frame) {
            sent.incrementAndGet();
            queue.add(frame);
        }

        @Override
        public void completed(long seq, Map<Integer, Map<String, byte[]>> data) {
            List<byte[]> frames = frames(data);
            sent.addAndGet(frames.size());
            queue.addAll(frames);
            send(new Wire.Builder(Wire.FENCE_OK, 8).i64(seq).build());
        }

        @Override
        public void failed(long seq, BootException e) {
            Wire.Builder b = new Wire.Builder(Wire.FENCE_FAIL, 64).i64(seq);
            int[] missing = e.missingRanks();
            b.i32(missing.length);
            for (int r : missing) b.i32(r);
            send(b.string(e.getMessage()).build());
        }

        private void drain() {
            try (OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16)) {
                while (true) {
                    byte[] f = queue.take();
                    if (f == CLOSE) break;
                    out.write(f);
                    if (queue.isEmpty()) out.flush();
                }
                out.flush();
            } catch (IOException | InterruptedException e) {
                // the reader notices the broken connection
            } finally {
                closeQuietly(socket);
            }
        }

        void close() { queue.add(CLOSE); }
    }

    /**
     * The DATA frames of one collect-data result, encoded once and shared by its receivers (a
     * session has one fence in flight, so DATA carries no fence number; FENCE_OK closes it).
     * Called under the fence coordinator's lock.
     */
    private List<byte[]> frames(Map<Integer, Map<String, byte[]>> data) {
        if (data != lastData) {
            lastData = data;
            lastFrames = Wire.dataFrames(data);
        }
        return lastFrames;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /**
     * Stops accepting, lets every connection's writer send what is queued (up to 2 s), then
     * closes the connections.
     */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Connection c : connections) c.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        for (Connection c : connections) {
            try {
                c.writer.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            closeQuietly(c.socket);
        }
        fences.close();
    }
}
