package org.lpf4j.engine.net;

import org.lpf4j.superstep.Transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The TCP connections of one job's processes: made on first use by either side, each
 * authenticated by {@link Handshake} ({@link Connections}: a pair that talks holds one or two,
 * a pair that never talks none), and the progress engine that moves frames ({@link Frame}) over
 * them. No thread of its own: the thread that waits (a sync, a collective, the
 * runtime's loop) makes the progress, reading and writing every connection through one
 * {@link Selector} with nonblocking channels, so progress does not depend on a thread per peer.
 *
 * <p><b>Matching.</b> A receive is posted for (channel, peer) and takes that pair's next frame of
 * the active section, in order. A frame that arrives before its receive is posted (a stream sent
 * before the round, a cause, a runtime command) is kept in memory of its own until the receive
 * comes, and then copied; but a large put's payload that comes first is left in the socket until
 * its receive is posted (the receiving process posts it without waiting for anything more from
 * that peer), so that it goes straight into its memory.
 *
 * <p><b>Few system calls.</b> A sync's small frames cost a copy each instead of calls: they are
 * staged per peer and written together when the process next waits (the round's frame with the
 * stream sent before it, one write), and each readiness of a connection is one read into a buffer
 * of the peer's that the frames are parsed from. A large payload goes between the caller's memory
 * and the socket without a copy (its segment as a direct buffer), after the staged bytes in one
 * gathering write, at most {@link #WRITE_CHUNK} bytes per call.
 *
 * <p><b>Two connections per pair.</b> Of a pair that talks, the main connection carries every
 * frame both ways except the higher rank's large payloads ({@code Transport.Channel.LARGE}),
 * which go on a connection of their own that the higher rank dials when it first sends one
 * ({@link Connections}: who dials which, and what happens when both dial at once). A send to a
 * peer whose connection is being made is staged as usual and written once it is ready. Over one
 * connection, two processes that write
 * large payloads to each other at once slow each other down (each one's data reaches a socket its
 * owner holds locked while it writes, and waits in that socket's backlog); over a connection per
 * direction, a small frame's answer no longer carries the acknowledgement of the frame it answers
 * (docs/performance.md: the large transfers gain, the small exchanges keep their latency).
 *
 * <p><b>Failure.</b> A connection that ends without the peer's goodbye frame, or breaks, or a dial
 * the peer does not answer, marks the peer dead; every wait of a section that peer belongs to then
 * throws {@link Transport.Stopped} naming it, at once. Since a process may hold no connection to
 * the dead one, the news spreads: the process that saw the death sends a {@link Frame#FAIL} naming
 * it over every connection it holds, each process that learns it first does the same, and a
 * connection made later gets it too. The sync's rounds connect every process with its partners
 * at distance 2<sup>k</sup>, so the news reaches every process that waits in about ⌈log2 p⌉
 * hops. With a deadline ({@code syncTimeoutMillis}) a wait that sees no frame it needs for that
 * long throws the same, naming the peers it waited for.
 *
 * <p><b>Peers on this host.</b> A connection whose peer proved to share this host as it was made
 * ({@link LocalPeers}) stays a connection, but its bytes (the same frames) go through
 * shared-memory rings ({@link ShmLink}): each step of progress polls them, and a wait that blocks
 * first asks the peers to wake it by a byte on the socket; a socket's end is still the peer's end.
 * Each connection chooses on its own, so a pair may hold a linked and a TCP connection.
 *
 * <p><b>Parts.</b> The mesh is the facade the engine uses; each job is a class of its own, all
 * package-private and wired once when the mesh is made: {@link ConnTable} (peers, connections,
 * dials and the frames held for connections being made; {@link Connections} makes them),
 * {@link Matching} (posted receives and stashed frames), {@link FrameIo} (staging, writing,
 * reading and parsing frames, over sockets or rings), {@link Failures} (deaths and their
 * spreading) and {@link ProgressLoop} (the selector and the rings, spinning and blocking).
 *
 * <p>Used by one thread at a time.
 */
final class Mesh implements AutoCloseable {
    /**
     * @param setupMillis how long one connection may take to be made ({@code lpf.engine.net.setupMillis})
     * @return how long a handshake's read may wait: a quarter of that (JVMs that start on busy
     *         cores answer late, and at p = 256 on 2 cores a handshake waited more than 60 s); the
     *         accepting side waits at least 5 s for a connection's HELLO, in all (a connection
     *         that never proves the key holds one of the {@link #MAX_HANDSHAKES} +
     *         {@link #MAX_WAITING_HANDSHAKES} places that long, and none of the slots)
     */
    static int handshakeMillis(long setupMillis) { return (int) Math.max(1, Math.min(Integer.MAX_VALUE, setupMillis / 4)); }
    /** Handshakes checked at once (from a HELLO to the locality exchange's end); more accepted connections wait for a slot, in order. */
    static final int MAX_HANDSHAKES = 64;
    /**
     * Accepted connections that may wait for a handshake slot; more are refused at once. Waiting
     * in order, rather than being refused and dialled again, keeps a process that many peers
     * dial at once (p = 256 on 2 cores) from spending its time on retries.
     */
    static final int MAX_WAITING_HANDSHAKES = 1024;
    /**
     * Dials one process has under way at once (each with its handshake and locality exchange);
     * more wait, the nearest rank above this process first. A superstep that first talks to every
     * peer would otherwise start p − 1 handshakes at every process at once, and in rank order,
     * every process dialling ranks 0, 1, 2 … first: at p = 256 the first ranks' handshakes took
     * longer than a handshake may wait.
     */
    static final int MAX_DIALS = 8;
    /**
     * A connection's buffer each way at most ({@link #bufferBytes}): bytes read from a socket at
     * once (frames up to this size and the headers arrive in one read), and bytes staged for it
     * (small frames are copied there and written together, in one write).
     */
    static final int BUFFER_MAX = 64 * 1024;
    /** A connection's buffer each way at least: twice {@link #DIRECT_MIN}, so that a frame read through the buffer fits in it. */
    static final int BUFFER_MIN = 32 * 1024;
    /** Payloads up to this size are copied into the staging buffer; larger ones go from their memory in place. */
    static final long COPY_MAX = 8 * 1024;
    /** A frame with at least this many bytes still to come, when nothing else is buffered, is read into its memory in place. */
    static final long DIRECT_MIN = 16 * 1024;

    /**
     * @param processBytes {@link NetParameters#BUFFER_PROCESS_BYTES}
     * @param size         the mesh's processes
     * @return the bytes of each of a connection's two buffers: the process's share over its
     *         2 (p - 1) connections, within {@link #BUFFER_MIN} and {@link #BUFFER_MAX}
     */
    static int bufferBytes(long processBytes, int size) {
        return (int) Math.min(BUFFER_MAX, Math.max(BUFFER_MIN, processBytes / (4L * Math.max(1, size - 1))));
    }
    /** A large put's payload of at least this size waits for its receive rather than being stashed and copied. */
    static final long PARK_MIN = 4 * 1024;
    /**
     * The most of a large payload that one socket call writes. Longer writes cost more than their
     * calls save where the kernel paces TCP (BBR): docs/performance.md, "Net engine".
     */
    static final long WRITE_CHUNK = 512 * 1024;
    /**
     * The spin of a wait when each of the job's processes on this machine has a core of its own:
     * long enough that a process which reaches a sync first is still polling when its peers'
     * frames arrive (waking a blocked thread costs tens of microseconds on a VM, and the peers'
     * large transfers then no longer overlap its own: docs/performance.md).
     */
    static final int SPIN_MICROS_OWN_CORE = 200;
    /**
     * The spin of a wait on sockets when the job's processes outnumber this machine's cores: a
     * longer one takes the core its peers need. A wait whose connections all go through memory
     * spins {@link #SPIN_MICROS_OWN_CORE} even then: polling rings and yielding costs the peers
     * little, and blocking costs a wake-up through the socket on both sides (docs/performance.md).
     */
    static final int SPIN_MICROS_CROWDED = 20;

    private final int rank, size;
    private final Selector selector;
    private final ConnTable table;
    private final Matching matching;
    private final FrameIo frames;
    private final ProgressLoop loop;
    private final Failures failures;
    /** Sections started on this mesh (their numbers are 1, 2, ...; 0 is the runtime's control traffic). */
    private int sections;
    private boolean closed;
    private final Consumer<String> log;
    /** {@link NetParameters#SHOW_PATHS}, read when the mesh is made: a launcher may have cleared its settings by the close. */
    private final boolean showPaths = NetParameters.SHOW_PATHS.get();
    /** Large payloads to peers on this host that read them from this process's memory (shared by {@link FrameIo} and {@link Matching}). */
    private final SingleCopy single;

    /** @return the connections of this mesh whose socket is open (made on first use): for the engine's counts */
    int openConnections() { return table.openConnections(); }

    /** @return the connections of this mesh whose socket is open and whose frames take {@code path} ({@link ConnectionPaths}) */
    int openConnections(int path) { return table.openConnections(path); }

    /** @return the path of the main connection with rank {@code r} ({@link ConnectionPaths}), or -1 if it is not made */
    int pathTo(int r) { return table.pathTo(r); }

    /** @return the payloads this process read from its peers' memory, and that they read from its ({@link SingleCopy}; for tests) */
    long[] singleCopies() { return new long[] {single.reads, single.sends}; }

    private Mesh(int rank, int size, byte[] key, long jobId, ServerSocketChannel server, List<InetSocketAddress> all,
                 long setupMillis, long spinNanos, long timeoutNanos, Consumer<String> log) throws IOException {
        this.rank = rank;
        this.size = size;
        this.log = log;
        this.selector = Selector.open();
        int local = localProcesses(rank, all);
        boolean crowded = WaitRequest.crowded(NetParameters.WAIT.get(), local, Runtime.getRuntime().availableProcessors());
        long spin = spinNanos >= 0 ? spinNanos : 1_000L * (crowded ? SPIN_MICROS_CROWDED : SPIN_MICROS_OWN_CORE);
        long memorySpin = spinNanos >= 0 ? spinNanos : 1_000L * SPIN_MICROS_OWN_CORE;
        Connections connections = new Connections(rank, size, key, jobId, server, all, setupMillis, log, selector,
                LocalPeers.open(key, jobId, rank, all, local, log));
        // The parts call each other (a read may find a death, a death is sent as a frame): made, then wired, once.
        int buffers = bufferBytes(NetParameters.BUFFER_PROCESS_BYTES.get(), size);
        this.table = new ConnTable(rank, size, buffers, selector, connections, log);
        SingleCopy single = SingleCopy.fromParameters();
        this.single = single;
        this.matching = new Matching(rank, size, single);
        this.frames = new FrameIo(size, buffers, single);
        Failures failures = this.failures = new Failures(rank, size, log);
        table.wire(frames, failures);
        matching.wire(table, frames, failures);
        frames.wire(table, matching, failures);
        failures.wire(table, frames, matching);
        this.loop = new ProgressLoop(rank, size, selector, spin, memorySpin, crowded, timeoutNanos, table, frames, failures, matching);
    }


    /** @return whether the process at {@code a} runs on this machine (its address is one of this machine's) */
    /**
     * @return the processes of {@code all} on this host: this one ({@code rank}) and every other
     *         whose boot address is one of this host's ({@link #isLocal}). Every process of a host
     *         counts the same. One interface lookup per distinct address.
     */
    static int localProcesses(int rank, List<InetSocketAddress> all) {
        Map<java.net.InetAddress, Boolean> local = new HashMap<>();
        int n = 1;
        for (int r = 0; r < all.size(); r++) {
            InetSocketAddress a = all.get(r);
            if (r != rank && a.getAddress() != null && local.computeIfAbsent(a.getAddress(), ip -> isLocal(a))) n++;
        }
        return n;
    }

    static boolean isLocal(InetSocketAddress a) {
        try {
            if (a.getAddress() == null) return false;
            java.net.InetAddress ip = a.getAddress();
            return ip.isLoopbackAddress() || java.net.NetworkInterface.getByInetAddress(ip) != null;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Makes the mesh of rank {@code rank}: no connection yet. It accepts the others' connections
     * on {@code server} (bound by the caller, whose address {@code all} holds at this rank) for as
     * long as it lives, and dials a peer at its address in {@code all} when it first sends to it
     * ({@link Connections}); each connection is authenticated, and one that does not prove the key
     * is logged and dropped. The mesh closes {@code server} when it closes.
     *
     * @param setupMillis the longest one connection may take to be made
     * @param spinNanos   how long a wait polls before it blocks; negative: chosen by whether the
     *                    job's processes on this machine outnumber its cores
     * @throws IOException if the listening socket cannot be used
     */
    static Mesh connect(int rank, int size, byte[] key, long jobId, ServerSocketChannel server, List<InetSocketAddress> all,
                        long setupMillis, long spinNanos, long timeoutNanos, Consumer<String> log) throws IOException {
        if (all.size() != size) throw new IOException("the boot exchange gave " + all.size() + " addresses for " + size + " processes");
        Mesh m = new Mesh(rank, size, key, jobId, server, all, setupMillis, spinNanos, timeoutNanos, log);
        m.table.connections.start();
        return m;
    }

    /**
     * Collective over the whole mesh: a dissemination barrier (⌈log2 p⌉ steps, each process
     * sending to the rank 2<sup>k</sup> after it), so that a process that cannot join (it failed
     * to start, or belongs to another job and cannot prove the key) fails every process's start
     * rather than its first sync, while only the connections a sync's rounds need are made.
     *
     * @param setupMillis how long the barrier may take
     * @throws IOException naming a process not heard from in time, or one that died
     */
    void join(long setupMillis) throws IOException {
        activate(0, size);
        long start = System.nanoTime(), deadline = start + setupMillis * 1_000_000L;
        int[] pending = new int[1];
        try {
            for (int d = 1; d < size; d <<= 1) connect((rank + d) % size); // the dials at once, not one per step
            for (int d = 1; d < size; d <<= 1) {
                int from = (rank - d + size) % size;
                receive(Frame.COLLECTIVE, MemorySegment.NULL, 0, 0, from, pending, 0);
                send(Frame.COLLECTIVE, 0, MemorySegment.NULL, 0, 0, (rank + d) % size, pending, 0);
                frames.flush(); // the receive may be done already: the send must still leave before join returns
                while (pending[0] > 0 || table.held > 0) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IOException("rank " + rank + ": rank " + from + " did not join within " + setupMillis
                                + " ms (it did not start, or it cannot prove the job key)");
                    }
                    progress(start, "the start-up barrier", from);
                }
            }
        } catch (Transport.Stopped e) {
            throw new IOException("rank " + rank + ": " + e.getMessage(), e);
        }
    }

    static void closeQuietly(java.nio.channels.Channel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing a connection that broke, ended or that nobody will use
        }
    }

    /** Makes the main connection to {@code r} now, unless it is made or being made: a process that waits for {@code r} sees it die. */
    void connect(int r) { table.connect(r); }

    /** @return connections this process dialled that were made (for tests and counts) */
    int connectionsDialled() { return table.connections.dialled(); }

    /** @return connections this process accepted (for tests and counts) */
    int connectionsAccepted() { return table.connections.accepted(); }

    /** @return whether this process holds a connection with rank {@code r} */
    boolean connectedTo(int r) { return table.connectedTo(r); }

    /** @return the ranks this process holds a connection with */
    int peersConnected() { return table.peersConnected(); }

    /** @return why this process holds rank {@code r} dead, or null if it does not (for tests) */
    String deathOf(int r) {
        Peer p = table.peers[r];
        return p != null && p.dead ? p.death : null;
    }

    /** @return whether rank {@code r}'s main connection ended after its goodbye (for tests) */
    boolean leftInOrder(int r) {
        Peer p = table.peers[r];
        return p != null && p.shared.saidBye && p.shared.channel != null && !p.shared.channel.isOpen();
    }

    /** @return this process's rank */
    int rank() { return rank; }

    /** @return the peers whose main connection goes through shared memory (for tests) */
    int linkedPeers() { return table.linkedPeers(); }

    /** @return the connections (of either role) that go through shared memory (for tests) */
    int linkedConnections() { return table.linked.length; }

    /** @return the mesh's processes */
    int size() { return size; }

    /** Tells the mesh which superstep the active section is in, for the deadline's message. */
    void atSuperstep(long superstep) { loop.superstep = superstep; }

    /** Continues the numbering after {@code section}: a member of a section rank 0 numbered numbers its children as rank 0 does. */
    void resumeSectionsAt(int section) { sections = section; }

    /** @return the number of a new section of this mesh: every member that starts the same sections in the same order gets the same numbers */
    int nextSection() { return ++sections; }

    /**
     * Makes {@code section} the one whose frames receives match, with members ranks
     * {@code 0 .. members - 1}; frames of it that came early are taken from the stash.
     */
    void activate(int section, int members) {
        matching.activeSection = section;
        matching.activeMembers = members;
        for (Conn c : table.conns) if (c.parked && c.parkedSection != section) frames.unpark(c);
    }

    /**
     * Posts a send of a frame on {@code channel} of {@code section}; {@code pending[batch]} counts
     * it until its bytes are written or copied. A small frame is copied at once into the peer's
     * staging buffer (and counts for nothing), a large one is written from {@code from} in place;
     * either is written at the next wait ({@link #await}, {@link #progress}), with the frames
     * staged before it, in as few writes as the socket takes.
     */
    void send(int channel, int section, MemorySegment from, long offset, long length, int to, int[] pending, int batch) {
        frames.send(channel, section, from, offset, length, to, pending, batch);
    }

    /** Posts a receive of the next frame on {@code channel} from {@code from} into {@code length} bytes at {@code offset} of {@code into}. */
    void receive(int channel, MemorySegment into, long offset, long length, int from, int[] pending, int batch) {
        matching.receive(channel, into, offset, length, from, pending, batch);
    }

    /**
     * @return the bytes of the next frame on {@code channel} from {@code from} of the active
     *         section (or any, for {@link Frame#CONTROL}), waiting for it; a message whose length
     *         the receiver cannot know in advance
     */
    byte[] receiveWhole(int channel, int from, String waitingFor) {
        int q = channel * size + from;
        long start = System.nanoTime();
        while (true) {
            for (Stash s = matching.stashHead[q]; s != null; s = s.next) {
                if (channel != Frame.CONTROL && s.section != matching.activeSection) continue;
                if (!s.complete()) break;
                byte[] bytes = s.bytes.asSlice(0, s.length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                matching.unstash(q, s);
                return bytes;
            }
            progress(start, waitingFor, from);
        }
    }

    /**
     * Takes a frame of the active section on {@code channel} that came from any of its members
     * without a receive posted for it (the first complete one found), copying it to
     * {@code offset} of {@code into}; does not wait. O(1) when no frame of the channel is stashed.
     *
     * @param length the most bytes the frame may have
     * @return the member it came from, or -1 if none has come
     */
    int takeAny(int channel, MemorySegment into, long offset, long length) {
        return matching.takeAny(channel, into, offset, length);
    }

    /**
     * Writes what was staged, then moves frames until {@code pending[batch]} is 0 and no frame
     * waits in this process's buffers for its connection to be made.
     *
     * @param waitingFor what the wait is, for the deadline's message (e.g. "sync at superstep 12")
     */
    void await(int[] pending, int batch, String waitingFor) { loop.await(pending, batch, waitingFor); }

    /**
     * One step of progress ({@link ProgressLoop#progress}); throws {@link Transport.Stopped} when
     * a member of the active section died or the deadline passed.
     */
    void progress(long waitStart, String waitingFor, int waitedPeer) { loop.progress(waitStart, waitingFor, waitedPeer); }

    /**
     * For tests: writes an empty frame on {@code channel} over the connection that carries this
     * process's large payloads to {@code to} (made first), as a broken peer would when
     * {@code channel} is not theirs and this process is the higher rank.
     */
    void sendOnLargeConnectionForTest(int to, int channel) {
        Peer p = table.peer(to);
        long start = System.nanoTime();
        for (Conn need : new Conn[] {p.shared, p.largeOut}) {
            while (need.channel == null) {
                table.want(need);
                progress(start, "a connection for the test", to);
            }
        }
        Conn c = p.largeOut;
        FrameIo.stageHeader(c, channel, matching.activeSection, 0);
        c.dirty = true;
        frames.anyDirty = true;
        frames.flush();
    }

    /**
     * This process leaves the job midway, for an error of its own ({@link org.lpf4j.superstep.Transport#leave}):
     * it tells every peer it holds a main connection with that it is gone, saying why, then closes
     * every connection and its listener as its death would. Each peer marks it dead and spreads the
     * news, so that no wait of any section is left for it; this mesh serves no section again.
     */
    void leave(String why) {
        if (table.dropped) return;
        table.admit();
        failures.leave(why);
        table.dropConnections();
    }

    /** For tests: closes every connection and the listening socket without a goodbye, as the death of this JVM would. */
    void dropConnectionsForTest() { table.dropConnections(); }

    /** Says goodbye to every peer and closes every connection. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (showPaths) log.accept(ConnectionPaths.line(this));
        table.admit(); // a connection made just now gets its goodbye too
        // A goodbye on both connections of every peer: each side reads both, and a connection that
        // ends without one means a dead process.
        for (Conn c : table.conns) {
            if (c.peer.dead || !c.channel.isOpen()) continue;
            try {
                frames.sayBye(c); // what is staged goes before the goodbye; bounded in time
                c.channel.shutdownOutput();
            } catch (IOException | RuntimeException e) {
                // the peer is gone already: nothing to say goodbye to
            }
        }
        for (Peer p : table.peers) if (p != null) p.closeChannels();
        table.connections.close(); // and unmaps every connection's rings at once (LocalPeers.end)
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
        matching.close();
    }
}
