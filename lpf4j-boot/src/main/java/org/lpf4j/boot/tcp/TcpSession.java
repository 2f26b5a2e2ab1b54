package org.lpf4j.boot.tcp;

import org.lpf4j.spi.boot.AbstractBootSession;
import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootParameters;
import org.lpf4j.spi.boot.FenceOptions;
import org.lpf4j.spi.kit.DeadlineInput;
import org.lpf4j.spi.kit.JobHandshake;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@code tcp} boot session: one authenticated connection to the job's {@link TcpCoordinator}
 * (hosted by rank 0 unless {@link TcpSettings#serve()} is off). Commits and fences are frames on
 * that connection; a reader thread completes fences and lookups. Losing the connection fails
 * every pending and later operation with a {@link BootException} (naming rank 0 when it hosted
 * the coordinator).
 */
public final class TcpSession extends AbstractBootSession {
    private static final System.Logger LOG = System.getLogger("org.lpf4j.boot.tcp");

    private final TcpSettings settings;
    private final TcpCoordinator hosted;
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final Thread reader;
    private final AtomicLong requests = new AtomicLong();
    /** A lookup's answer when the coordinator has no such value (compared by identity). */
    private static final byte[] NOT_FOUND = new byte[0];

    private final Map<Long, CompletableFuture<byte[]>> lookups = new ConcurrentHashMap<>();
    private CompletableFuture<Map<Integer, Map<String, byte[]>>> fence;
    private long fenceSeq;
    private Map<Integer, Map<String, byte[]>> arriving = new HashMap<>();
    private volatile BootException broken;

    private TcpSession(TcpSettings settings, TcpCoordinator hosted, Socket socket, DataInputStream in) throws IOException {
        super(settings.rank(), settings.size());
        this.settings = settings;
        this.hosted = hosted;
        this.socket = socket;
        this.in = in;
        this.out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        this.reader = new Thread(this::read, "lpf-boot-tcp-reader " + settings.rank());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Joins the job: rank 0 starts the coordinator if it serves; every rank connects and
     * authenticates, connecting again until {@link TcpSettings#connectTimeoutMillis()} while the
     * coordinator cannot be reached or turns the connection away unauthenticated: it closed the
     * connection before its challenge (its {@link TcpCoordinator#MAX_HANDSHAKES} handshake slots
     * were taken), or before its WELCOME after this rank's HELLO went out late (its deadline,
     * {@link Wire#HANDSHAKE_MILLIS}, may have passed). A refusal of a HELLO sent in time (wrong
     * key, size or rank) is final.
     *
     * @param settings the job's settings
     * @return the session
     * @throws BootException if the coordinator cannot be bound or reached in time, or refuses
     */
    public static TcpSession open(TcpSettings settings) {
        TcpCoordinator hosted = null;
        if (settings.serve() && settings.rank() == 0) {
            InetSocketAddress bind = new InetSocketAddress(settings.bind(), settings.address().getPort());
            try {
                hosted = new TcpCoordinator(bind, settings.size(), settings.key(), settings.maxFrame(), LOG);
            } catch (IOException e) {
                throw new BootException("boot tcp: rank 0 cannot listen on " + bind + " (lpf.boot.tcp.bind, lpf.boot.tcp.address): " + e,
                        new int[0], e);
            }
        }
        try {
            return join(settings, hosted);
        } catch (IOException | RuntimeException e) {
            if (hosted != null) hosted.close();
            if (e instanceof BootException b) throw b;
            throw new BootException("boot tcp: rank " + settings.rank() + " cannot join the job at " + settings.address() + ": " + e,
                    new int[0], e);
        }
    }

    /** The coordinator turned a connection away before authenticating it, for a reason that passes: connect again. */
    private static final class Again extends IOException {
        private static final long serialVersionUID = 1L;

        Again(String message) { super(message); }
    }

    /** Connects and authenticates until the connect timeout (see {@link #open}). */
    private static TcpSession join(TcpSettings settings, TcpCoordinator hosted) throws IOException {
        // The first HMAC and nonce load their classes (seconds on busy cores): here, not within the coordinator's deadline.
        Wire.PROOFS.hello(settings.key(), new byte[Wire.NONCE], JobHandshake.nonce(), JobHandshake.claims(settings.rank(), settings.size()));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.connectTimeoutMillis());
        while (true) {
            Socket s = connect(settings, deadline);
            long connected = System.nanoTime();
            try {
                handshake(settings, s, connected, deadline);
                return new TcpSession(settings, hosted, s, new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 16)));
            } catch (Again e) {
                s.close();
                if (System.nanoTime() >= deadline) {
                    throw new BootException("boot tcp: rank " + settings.rank() + " could not join the job at " + settings.address()
                            + " within " + settings.connectTimeoutMillis() + " ms (lpf.boot.tcp.connect_timeout): " + e.getMessage(),
                            settings.serve() && settings.rank() != 0 ? new int[]{0} : new int[0], e);
                }
                pause();
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }
    }

    private static void pause() throws IOException {
        try {
            Thread.sleep(50);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting", ie);
        }
    }

    private static Socket connect(TcpSettings settings, long deadline) throws IOException {
        IOException last = null;
        while (System.nanoTime() < deadline) {
            Socket s = new Socket();
            try {
                s.setTcpNoDelay(true);
                s.connect(settings.address(), (int) Math.max(1, Math.min(5_000, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
                return s;
            } catch (IOException e) {
                last = e;
                s.close();
                pause();
            }
        }
        throw new BootException("boot tcp: rank " + settings.rank() + " could not reach the coordinator at " + settings.address()
                + " within " + settings.connectTimeoutMillis() + " ms (lpf.boot.tcp.connect_timeout): " + last,
                settings.serve() && settings.rank() != 0 ? new int[]{0} : new int[0], last);
    }

    /**
     * Reads the coordinator's frames unbuffered, so that the session's input starts right after
     * them, and all of them by the connect timeout's end.
     *
     * @param connected when the connection was made ({@link System#nanoTime()})
     * @param deadline  when the connect timeout ends ({@link System#nanoTime()})
     */
    private static void handshake(TcpSettings settings, Socket s, long connected, long deadline) throws IOException {
        DeadlineInput timed = new DeadlineInput(s, deadline);
        DataInputStream in = new DataInputStream(timed);
        Wire.Frame challenge;
        try {
            challenge = Wire.read(in, Wire.HANDSHAKE_LIMIT);
        } catch (SocketTimeoutException e) {
            throw notAnswered(settings, "its challenge", e);
        } catch (SocketException e) {
            challenge = null; // reset: closed as soon as accepted
        }
        if (challenge == null) {
            throw new Again("the coordinator at " + settings.address() + " closed the connection before its challenge (its "
                    + TcpCoordinator.MAX_HANDSHAKES + " handshake slots taken?)");
        }
        if (challenge.type() != Wire.CHALLENGE) {
            throw new BootException("boot tcp: " + settings.address() + " did not send a challenge (not an lpf4j coordinator?)");
        }
        ByteBuffer p = challenge.payload();
        int version = Wire.i32(p);
        byte[] sn = Wire.fixed(p, Wire.NONCE);
        if (version != Wire.VERSION) {
            throw new BootException("boot tcp: the coordinator at " + settings.address() + " speaks protocol " + version
                    + ", this lpf4j speaks " + Wire.VERSION);
        }
        byte[] cn = JobHandshake.nonce();
        OutputStream o = s.getOutputStream();
        o.write(new Wire.Builder(Wire.HELLO, 80).i32(Wire.VERSION).i32(settings.rank()).i32(settings.size()).bytes(cn)
                .bytes(Wire.PROOFS.hello(settings.key(), sn, cn, JobHandshake.claims(settings.rank(), settings.size()))).build());
        o.flush();
        long late = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connected);
        Wire.Frame welcome;
        try {
            welcome = Wire.read(in, Wire.HANDSHAKE_LIMIT);
        } catch (SocketTimeoutException e) {
            throw notAnswered(settings, "its welcome", e);
        } catch (IOException e) {
            welcome = null;
        }
        if (welcome == null && late >= Wire.HANDSHAKE_MILLIS / 2) {
            throw new Again("the coordinator at " + settings.address() + " closed the connection after a HELLO sent " + late
                    + " ms after the connect (it waits " + Wire.HANDSHAKE_MILLIS + " ms)");
        }
        if (welcome == null) {
            throw new BootException("boot tcp: the coordinator at " + settings.address() + " refused rank " + settings.rank()
                    + " (wrong job key lpf.boot.tcp.key, wrong size " + settings.size() + ", or rank taken; see its log)");
        }
        if (welcome.type() != Wire.WELCOME
                || !Wire.PROOFS.provesWelcome(Wire.fixed(welcome.payload(), JobHandshake.PROOF), settings.key(), cn, sn, Wire.NO_CLAIMS)) {
            throw new BootException("boot tcp: the coordinator at " + settings.address() + " failed to prove it holds the job key");
        }
        timed.restore();
    }

    private static BootException notAnswered(TcpSettings settings, String what, SocketTimeoutException e) {
        return new BootException("boot tcp: rank " + settings.rank() + ": the coordinator at " + settings.address() + " did not send "
                + what + " within " + settings.connectTimeoutMillis() + " ms (lpf.boot.tcp.connect_timeout)",
                settings.serve() && settings.rank() != 0 ? new int[]{0} : new int[0], e);
    }

    @Override public String module() { return "tcp"; }

    /** @return the coordinator this session hosts (rank 0 by default), or {@code null} */
    TcpCoordinator hostedCoordinator() { return hosted; }

    @Override
    protected void checkValue(String key, int length) {
        if (length > settings.maxFrame() - 64 - 4L * key.length()) {
            throw new IllegalArgumentException("put('" + key + "'): a value of " + length + " bytes exceeds lpf.boot.tcp.max_frame = "
                    + settings.maxFrame());
        }
    }

    private void send(List<byte[]> frames) {
        BootException b = broken;
        if (b != null) throw again(b);
        try {
            synchronized (out) {
                for (byte[] f : frames) out.write(f);
                out.flush();
            }
        } catch (IOException e) {
            throw again(lost(e));
        }
    }

    private static BootException again(BootException b) { return new BootException(b.getMessage(), b.missingRanks(), b); }

    @Override
    protected void publish(Map<String, byte[]> batch) { send(Wire.entries(Wire.COMMIT, b -> { }, batch)); }

    @Override
    protected CompletableFuture<Map<Integer, Map<String, byte[]>>> startFence(long seq, long instance, FenceOptions options, int[] participants,
                                                                             Duration timeout) {
        CompletableFuture<Map<Integer, Map<String, byte[]>>> f = new CompletableFuture<>();
        synchronized (this) {
            fence = f;
            fenceSeq = seq;
            arriving = new HashMap<>();
        }
        Wire.Builder b = new Wire.Builder(Wire.FENCE, 40).i64(seq).i64(instance).u8(options.collectData() ? 1 : 0).i64(timeout.toMillis());
        Wire.ranks(b, options.ranks());
        try {
            send(List.of(b.build()));
        } catch (BootException e) {
            f.completeExceptionally(e);
        }
        return f;
    }

    @Override
    protected byte[] fetch(int owner, String key, long timeoutNanos) {
        long id = requests.incrementAndGet();
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        lookups.put(id, f);
        try {
            long millis = TimeUnit.NANOSECONDS.toMillis(timeoutNanos);
            send(List.of(new Wire.Builder(Wire.GET, 32 + key.length() * 3).i64(id).i32(owner).i64(millis).string(key).build()));
            byte[] v = f.get(millis + 5_000, TimeUnit.MILLISECONDS);
            return v == NOT_FOUND ? null : v;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof BootException b ? again(b) : new BootException("get: " + e.getCause(), new int[0], e);
        } catch (TimeoutException e) {
            throw new BootException("get(rank " + owner + ", '" + key + "'): no answer from the coordinator at " + settings.address());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BootException("get(rank " + owner + ", '" + key + "'): interrupted", new int[0], e);
        } finally {
            lookups.remove(id);
        }
    }

    private void read() {
        try {
            while (true) {
                Wire.Frame f = Wire.read(in, Integer.MAX_VALUE - 8);
                if (f == null) throw new IOException("the coordinator closed the connection");
                ByteBuffer p = f.payload();
                switch (f.type()) {
                    case Wire.DATA -> {
                        synchronized (this) {
                            Wire.readData(p, arriving);
                        }
                    }
                    case Wire.FENCE_OK -> {
                        long seq = Wire.i64(p);
                        CompletableFuture<Map<Integer, Map<String, byte[]>>> done;
                        Map<Integer, Map<String, byte[]>> data;
                        synchronized (this) {
                            if (seq != fenceSeq) continue;
                            done = fence;
                            data = arriving;
                            arriving = new HashMap<>();
                        }
                        done.complete(data);
                    }
                    case Wire.FENCE_FAIL -> {
                        long seq = Wire.i64(p);
                        int n = Wire.i32(p);
                        if (n < 0 || n > size()) throw new Wire.ProtocolException("FENCE_FAIL names " + n + " ranks");
                        int[] missing = new int[n];
                        for (int i = 0; i < n; i++) missing[i] = Wire.i32(p);
                        String message = Wire.string(p, Integer.MAX_VALUE);
                        CompletableFuture<Map<Integer, Map<String, byte[]>>> done;
                        synchronized (this) {
                            if (seq != fenceSeq) continue;
                            done = fence;
                            arriving = new HashMap<>();
                        }
                        done.completeExceptionally(new BootException(message + " (seen by rank " + rank() + ")",
                                missing, null));
                    }
                    case Wire.VALUE -> {
                        long id = Wire.i64(p);
                        boolean found = Wire.u8(p) != 0;
                        byte[] v = Wire.blob(p, Integer.MAX_VALUE);
                        CompletableFuture<byte[]> l = lookups.get(id);
                        if (l != null) l.complete(found ? v : NOT_FOUND);
                    }
                    default -> throw new Wire.ProtocolException("unknown message type " + f.type() + " from the coordinator");
                }
            }
        } catch (IOException e) {
            BootException b = isClosed() ? new BootException("boot tcp session of rank " + rank() + " is closed") : lost(e);
            broken = b;
            CompletableFuture<Map<Integer, Map<String, byte[]>>> done;
            synchronized (this) {
                done = fence;
            }
            if (done != null) done.completeExceptionally(b);
            lookups.values().forEach(l -> l.completeExceptionally(b));
        }
    }

    private BootException lost(IOException e) {
        boolean rank0 = settings.serve();
        return new BootException("boot tcp: rank " + rank() + " lost its connection to the coordinator at " + settings.address()
                + (rank0 ? " (hosted by rank 0: rank 0 died or closed its session)" : "") + ": " + e.getMessage(),
                rank0 && rank() != 0 ? new int[]{0} : new int[0], e);
    }

    @Override
    protected void release() {
        try {
            synchronized (out) {
                out.write(new Wire.Builder(Wire.BYE, 0).build());
                out.flush();
            }
        } catch (IOException ignored) {
            // the coordinator may be gone already
        }
        try {
            if (hosted != null) {
                // The others may still fence among themselves: serve them until they left (bounded).
                long deadline = System.nanoTime() + BootParameters.fenceTimeout().toNanos();
                while (!hosted.finished() && System.nanoTime() < deadline) Thread.sleep(10);
                hosted.close();
            } else {
                socket.shutdownOutput();
                // let the coordinator see BYE before the connection ends
                reader.join(2_000);
            }
        } catch (IOException | InterruptedException ignored) {
            // closing
        } finally {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
