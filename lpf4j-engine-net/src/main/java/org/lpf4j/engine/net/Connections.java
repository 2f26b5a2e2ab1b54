package org.lpf4j.engine.net;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * How a {@link Mesh}'s connections are made: on first use, by either side, each authenticated by
 * {@link Handshake}. The listening socket stays open while the mesh lives; a thread of its own
 * accepts, and every dial and handshake runs on a virtual thread, bounded in time, so that the
 * mesh's thread never blocks on a peer that is slow to answer; at most {@link Mesh#MAX_DIALS} of a
 * process's dials (the others wait, the nearest rank above this one first) and
 * {@link Mesh#MAX_HANDSHAKES} of its accepted connections' handshakes are checked at once (the
 * others wait in order; a connection takes a slot only once its HELLO has come, which it must
 * within one deadline, so that silent connections hold none). A connection that is ready (or a
 * dial that failed) is handed to the mesh's thread ({@link #poll}), and its selector woken.
 *
 * <p><b>Roles.</b> A pair (a &lt; b) that talks has a <em>main</em> connection, which carries
 * every frame both ways except b's large payloads, and, once b sends one, b's <em>large</em>
 * connection, which carries those only (the performance design of two connections per pair, see
 * {@link Mesh}). Whoever first needs the main connection dials it; b dials its large connection
 * only when its main one is in place. <b>When both dial the main connection at once</b>, a's
 * wins: a, accepting b's dial while its own is under way, gives b's connection the large role
 * (a pair then holds the two connections it held before connections were made on first use),
 * and b, accepting a's, gives it the main role. The acceptor's answer is part of the handshake,
 * so both sides agree before either writes a frame.
 *
 * <p><b>Locality.</b> After its handshake, on the same thread, every connection runs the locality
 * exchange ({@link LocalPeers}, two more messages): a peer that proves to share this host gives
 * the connection shared-memory rings, which the {@link Ready} carries to the mesh.
 *
 * <p>Costs: a connection costs a dial and a handshake (three messages, two HMACs) the first time
 * a pair talks; nothing afterwards. The mesh counts the connections it dialled and accepted
 * ({@link #dialled}, {@link #accepted}).
 */
final class Connections implements AutoCloseable, Handshake.Roles {
    /**
     * What the mesh's thread receives: a connection ready for its role, or a dial that failed.
     *
     * @param intent the role this process dialled it for; -1 for a connection it accepted
     * @param link   its shared-memory rings if the peer proved to share this host ({@link LocalPeers}), else null
     */
    record Ready(int rank, int intent, int role, SocketChannel channel, ShmLink link, String failure) {
        Ready(int rank, int intent, int role, SocketChannel channel, String failure) { this(rank, intent, role, channel, null, failure); }

        /** Closes the connection: nobody will use it (its rings are unmapped when the mesh ends, {@link LocalPeers#end}). */
        void discard() {
            if (channel != null) Mesh.closeQuietly(channel);
        }
    }

    /** A {@link Ready}'s intent when an accepted main connection was withdrawn ({@link #withdraw}): no channel, no failure. */
    static final int WITHDRAWN = -2;
    private static final int NONE = 0, DIALLING = 1, SET = 2;
    private final int rank, size;
    private final byte[] key;
    private final long jobId;
    private final ServerSocketChannel server;
    private final List<InetSocketAddress> addresses;
    private final long dialMillis;
    private final Consumer<String> log;
    private final Selector wake;
    /** The locality exchange every connection runs after its handshake. */
    private final LocalPeers local;
    /** Per peer, guarded by this: whether this process dials, or has, the pair's main connection. */
    private final byte[] main;
    /** Per peer, guarded by this: whether this process's dial of the main connection is under way. */
    private final boolean[] dialsMain;
    private final ConcurrentLinkedQueue<Ready> ready = new ConcurrentLinkedQueue<>();
    private final AtomicInteger handshaking = new AtomicInteger();
    /**
     * Dials waiting for one of the {@link Mesh#MAX_DIALS} slots, guarded by this: the nearest rank
     * above this one first ({@link #dial}), so that processes which all talk to every peer at once
     * spread their dials over the peers rather than all dialling rank 0 first.
     */
    private final PriorityQueue<Integer> waitingDials = new PriorityQueue<>();
    /** Dials under way, guarded by this. */
    private int dialsUnderWay;
    /** Slots for the handshakes of accepted connections ({@link Mesh#MAX_HANDSHAKES}), taken in order. */
    private final Semaphore handshakes = new Semaphore(Mesh.MAX_HANDSHAKES, true);
    private final AtomicInteger dialled = new AtomicInteger(), accepted = new AtomicInteger();
    private volatile boolean closed;

    /**
     * @param server     the listening socket (bound; its address is this rank's in {@code addresses}); closed by {@link #close}
     * @param dialMillis the longest one dial and handshake may take, retries included
     * @param wake       the mesh's selector, woken when a connection is ready
     */
    Connections(int rank, int size, byte[] key, long jobId, ServerSocketChannel server, List<InetSocketAddress> addresses,
                long dialMillis, Consumer<String> log, Selector wake) {
        this(rank, size, key, jobId, server, addresses, dialMillis, log, wake, LocalPeers.off(rank, log));
    }

    /** @param local the locality exchange each connection runs after its handshake (shared memory for peers on this host) */
    Connections(int rank, int size, byte[] key, long jobId, ServerSocketChannel server, List<InetSocketAddress> addresses,
                long dialMillis, Consumer<String> log, Selector wake, LocalPeers local) {
        this.rank = rank;
        this.size = size;
        this.key = key;
        this.jobId = jobId;
        this.server = server;
        this.addresses = addresses;
        this.dialMillis = dialMillis;
        this.log = log;
        this.wake = wake;
        this.local = local;
        this.main = new byte[size];
        this.dialsMain = new boolean[size];
    }

    /** Starts accepting. */
    void start() throws IOException {
        server.configureBlocking(true);
        Thread.ofVirtual().name("lpf4j-net-accept-" + rank).start(this::acceptLoop);
    }

    /** @return connections this process dialled that were made */
    int dialled() { return dialled.get(); }

    /** @return connections this process accepted that were made */
    int accepted() { return accepted.get(); }

    /** @return the next connection ready (or failed dial), or null */
    Ready poll() { return ready.poll(); }

    /**
     * Dials the pair's main connection to {@code peer} (at the next {@link #launchDials}) unless
     * this process dials or has it, or accepted it.
     *
     * @return whether a dial was queued
     */
    boolean dialMain(int peer) {
        synchronized (this) {
            if (main[peer] != NONE) return false;
            main[peer] = DIALLING;
            dialsMain[peer] = true;
        }
        dial(peer, Handshake.MAIN);
        return true;
    }

    /** Dials this (higher) rank's large-payload connection to {@code peer} (at the next {@link #launchDials}). */
    void dialLarge(int peer) { dial(peer, Handshake.LARGE); }

    /** The acceptor's rule for a connection's role (see the class comment). */
    @Override
    public synchronized int role(int from, int intent) throws Handshake.Refused {
        if (intent == Handshake.LARGE) {
            if (from < rank) throw new Handshake.Refused("rank " + from + " dialled a large-payload connection to a higher rank");
            return Handshake.LARGE;
        }
        if (from < rank || main[from] == NONE) {
            main[from] = SET;
            return Handshake.MAIN;
        }
        return Handshake.LARGE; // this (lower) rank dials the main connection itself: its dial wins
    }

    /**
     * The WELCOME of a main connection could not be written, or its locality exchange failed: the
     * pair has no main connection from it. When this process does not dial the pair's main
     * connection itself, the mesh hears of it ({@link #WITHDRAWN}): it may have held frames for
     * the connection it expected, and dials it now.
     */
    @Override
    public void withdraw(int from, int role) {
        synchronized (this) {
            if (role != Handshake.MAIN || main[from] != SET) return;
            main[from] = (byte) (dialsMain[from] ? DIALLING : NONE);
            if (dialsMain[from]) return;
        }
        hand(new Ready(from, WITHDRAWN, Handshake.MAIN, null, null));
    }

    /** Queues a dial of {@code peer} for the role {@code intent}: {@link #launchDials} starts it once a slot is free. */
    private synchronized void dial(int peer, int intent) {
        waitingDials.add(((peer - rank + size) % size) * 2 + (intent == Handshake.MAIN ? 0 : 1));
    }

    /**
     * Starts queued dials while fewer than {@link Mesh#MAX_DIALS} are under way, the nearest rank
     * above this one first. The mesh's thread calls it at each step of progress, so that the dials
     * a superstep asks for are queued together before any starts; a dial that ends calls it too.
     */
    void launchDials() {
        while (true) {
            int order;
            synchronized (this) {
                if (closed || dialsUnderWay >= Mesh.MAX_DIALS || waitingDials.isEmpty()) return;
                order = waitingDials.poll();
                dialsUnderWay++;
            }
            startDial(order);
        }
    }

    /** Starts the dial whose order ({@link #dial}) is {@code order}, on a virtual thread of its own. */
    private void startDial(int order) {
        int peer = (order / 2 + rank) % size, intent = order % 2 == 0 ? Handshake.MAIN : Handshake.LARGE;
        Thread.ofVirtual().name("lpf4j-net-dial").start(() -> {
            Ready r;
            try {
                Made m = connect(peer, intent);
                ShmLink link = afterHandshake(m.channel(), peer, m.role(), true);
                if (intent == Handshake.MAIN) {
                    synchronized (this) {
                        main[peer] = SET; // this dial's, or (its dial demoted) the lower rank's, coming
                        dialsMain[peer] = false;
                    }
                }
                dialled.incrementAndGet();
                r = new Ready(peer, intent, m.role(), m.channel(), link, null);
            } catch (IOException | RuntimeException e) {
                r = new Ready(peer, intent, intent, null, "pid " + peer + " took no connection from pid " + rank + " ("
                        + e + "): its JVM died or was killed");
            }
            nextDial();
            hand(r);
        });
    }

    /** A dial ended: the waiting dial first in order takes its slot (none once the mesh closed). */
    private void nextDial() {
        synchronized (this) {
            dialsUnderWay--;
        }
        launchDials();
    }

    /** Waits for one of {@code slots}; gives up (without one) once the mesh closes. */
    private void awaitSlot(Semaphore slots, String what) throws IOException {
        try {
            while (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                if (closed) throw new IOException("the mesh closed before " + what + " began");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + what, e);
        }
    }

    /** A connection this process dialled, and the role the acceptor gave it. */
    private record Made(SocketChannel channel, int role) {}

    /**
     * Connects to {@code to} and proves the key, retrying a connection that could not be made
     * until the dial's time is up; a refused connection (nothing listens: the process ended) is
     * retried briefly only, and a handshake whose answer did not come in time after its HELLO went
     * out not at all ({@link Handshake.Unsettled}: the acceptor may hold the connection already).
     * A read waits at most {@link Mesh#handshakeMillis} of the dial's time.
     */
    private Made connect(int to, int intent) throws IOException {
        InetSocketAddress at = addresses.get(to);
        long deadline = System.nanoTime() + dialMillis * 1_000_000L;
        int refused = 0;
        IOException last = null;
        while (System.nanoTime() < deadline && !closed) {
            SocketChannel ch = SocketChannel.open();
            try {
                ch.socket().connect(at, (int) Math.max(1, Math.min(5_000, (deadline - System.nanoTime()) / 1_000_000)));
                tune(ch, Mesh.handshakeMillis(dialMillis));
                return new Made(ch, Handshake.connect(ch, key, jobId, rank, size, to, intent));
            } catch (Handshake.Refused | Handshake.Unsettled e) {
                ch.close();
                throw e;
            } catch (IOException e) {
                ch.close();
                last = e;
                if (e instanceof ConnectException && ++refused >= 3) break;
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while connecting to rank " + to, ie);
                }
            }
        }
        throw new IOException("could not connect to " + at + (last != null ? ": " + last.getMessage() : ""), last);
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) log.accept("lpf4j net: rank " + rank + " could not accept a connection: " + e.getMessage());
                return;
            }
            if (handshaking.get() >= Mesh.MAX_HANDSHAKES + Mesh.MAX_WAITING_HANDSHAKES) {
                log.accept("lpf4j net: rank " + rank + " refused a connection from " + remote(ch) + ": "
                        + Mesh.MAX_HANDSHAKES + " handshakes under way and " + Mesh.MAX_WAITING_HANDSHAKES + " waiting");
                Mesh.closeQuietly(ch);
                continue;
            }
            handshaking.incrementAndGet();
            Thread.ofVirtual().name("lpf4j-net-handshake").start(() -> {
                boolean slot = false;
                try {
                    int wait = Math.max(5_000, Mesh.handshakeMillis(dialMillis));
                    tune(ch, wait);
                    // The HELLO before a slot, within one deadline: silent or trickling connections
                    // cannot hold the slots that the job's own handshakes need.
                    Handshake.Hello hello = Handshake.readHello(ch, System.nanoTime() + wait * 1_000_000L);
                    awaitSlot(handshakes, "a handshake with " + remote(ch));
                    slot = true;
                    Handshake.Peer p = Handshake.accept(hello, ch, key, jobId, rank, size, this);
                    ShmLink link;
                    try {
                        link = afterHandshake(ch, p.rank(), p.role(), false);
                    } catch (IOException | RuntimeException e) {
                        withdraw(p.rank(), p.role()); // the connection is closed below: its role is free again
                        throw e;
                    }
                    accepted.incrementAndGet();
                    hand(new Ready(p.rank(), -1, p.role(), ch, link, null));
                } catch (IOException | RuntimeException e) {
                    if (!closed) log.accept("lpf4j net: rank " + rank + " refused a connection from " + remote(ch) + ": " + e.getMessage());
                    Mesh.closeQuietly(ch);
                } finally {
                    if (slot) handshakes.release();
                    handshaking.decrementAndGet();
                }
            });
        }
    }

    /**
     * The hook after a handshake, on the connection's thread, before the mesh sees it: the
     * locality exchange ({@link LocalPeers}), which gives the connection shared-memory rings if its
     * peer proves to share this host. Closes the channel if the exchange fails.
     *
     * @return the rings, or null (TCP)
     */
    private ShmLink afterHandshake(SocketChannel ch, int peer, int role, boolean dialled) throws IOException {
        try {
            return local.link(ch, peer, role, dialled);
        } catch (IOException | RuntimeException e) {
            Mesh.closeQuietly(ch);
            throw e;
        }
    }

    /** Hands a result to the mesh's thread, or closes its connection if the mesh has closed. */
    private void hand(Ready r) {
        ready.add(r);
        if (closed && ready.remove(r)) r.discard();
        wake.wakeup();
    }

    static void tune(SocketChannel ch, int readTimeoutMillis) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        ch.socket().setSoTimeout(readTimeoutMillis);
    }

    static String remote(SocketChannel ch) {
        try {
            return String.valueOf(ch.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    /** Stops accepting and closes the listening socket; connections still being made are closed as they finish. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
        for (Ready r; (r = ready.poll()) != null; ) r.discard();
        local.end();
    }
}
