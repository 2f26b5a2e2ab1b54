package org.lpf4j.engine.net;

import org.lpf4j.superstep.Transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
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
 * <p>Used by one thread at a time.
 */
final class Mesh implements AutoCloseable {
    /** How long one connection may take to prove the key. */
    static final int HANDSHAKE_MILLIS = 5_000;
    /** Handshakes under way at once; more connections are refused at once. */
    static final int MAX_HANDSHAKES = 64;
    /** Bytes read from a socket at once: frames up to this size (and the headers) arrive in one read. */
    static final int IN_BYTES = 64 * 1024;
    /** Bytes staged for a socket at once: small frames are copied here and written together, in one write. */
    static final int OUT_BYTES = 64 * 1024;
    /** Payloads up to this size are copied into the staging buffer; larger ones go from their memory in place. */
    static final long COPY_MAX = 8 * 1024;
    /** A frame with at least this many bytes still to come, when nothing else is buffered, is read into its memory in place. */
    static final long DIRECT_MIN = 16 * 1024;
    /** A large put's payload of at least this size waits for its receive rather than being stashed and copied. */
    static final long PARK_MIN = 4 * 1024;
    /**
     * The most of a large payload that one socket call writes. Longer writes cost more than their
     * calls save where the kernel paces TCP (BBR): docs/performance.md, "Net engine".
     */
    static final long WRITE_CHUNK = 512 * 1024;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** The channel of large puts' payloads. */
    private static final int LARGE = Transport.Channel.LARGE.ordinal();
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /**
     * The spin of a wait when each of the job's processes on this machine has a core of its own:
     * long enough that a process which reaches a sync first is still polling when its peers'
     * frames arrive (waking a blocked thread costs tens of microseconds on a VM, and the peers'
     * large transfers then no longer overlap its own: docs/performance.md).
     */
    static final int SPIN_MICROS_OWN_CORE = 200;
    /** The spin of a wait when the job's processes outnumber this machine's cores: a longer one takes the core its peers need. */
    static final int SPIN_MICROS_CROWDED = 20;
    /** How long a wait spins on {@code selectNow}, since bytes last moved, before it blocks in {@code select}. */
    private final long spinNanos;
    /** Whether more of the mesh's processes run on this machine than it has cores: a spinning wait yields its core. */
    private final boolean crowded;
    /** Whether frames were staged for some peer since its last write. */
    private boolean anyDirty;
    /**
     * Connections holding staged frames while their socket is still being made. A wait ends only
     * once there are none: a process that leaves the mesh's calls after a wait (to compute, or to
     * close its boot session) must not keep a peer waiting for frames that sit in its buffers.
     */
    private int held;
    /** System.nanoTime() when a socket call last moved bytes: a wait spins until it has been idle this long. */
    private long lastMoved;
    private final long timeoutNanos;
    private final int rank, size;
    /** Per rank, made when this process first sends to, receives from or is dialled by it. */
    private final Peer[] peers;
    /** Every connection ready for frames, of every peer. */
    private Conn[] conns = new Conn[0];
    private final Selector selector;
    /** How connections are made: dials, the listening socket, handshakes. */
    private final Connections connections;
    /** For tests: the connections were dropped as a killed JVM's would be; nothing more is said. */
    private boolean dropped;
    private final Consumer<String> log;
    /** The section whose frames receives match, and its members (ranks 0 .. members - 1). */
    private int activeSection, activeMembers;
    /** The active section's superstep, for the deadline's message. */
    private long superstep;
    /** Sections started on this mesh (their numbers are 1, 2, ...; 0 is the runtime's control traffic). */
    private int sections;
    /** Posted receives, per channel and peer: queue heads and tails (intrusive lists of {@link Op}). */
    private final Op[] postedHead, postedTail;
    /** Frames that came before their receive, per channel and peer. */
    private final Stash[] stashHead, stashTail;
    private Op free;
    /** Stashes no frame uses, kept with their buffers. */
    private Stash freeStash;
    /** Stashed frames per channel, so that {@link #takeAny} finds none in O(1). */
    private final int[] stashed = new int[Frame.CHANNELS];
    private boolean closed;
    /** The connections whose frames go through shared memory ({@link ShmLink}), polled by every step of progress. */
    private Conn[] linked = new Conn[0];
    /** Whether every connection is linked: the sockets (wake-ups, ends) then need a look only now and then while spinning. */
    private boolean linkedOnly;
    /** Progress steps since the sockets were last looked at while spinning. */
    private int polls;
    /** Large payloads to peers on this host that read them from this process's memory. */
    private final SingleCopy single = SingleCopy.fromParameters();

    /** One posted send or receive. Pooled: a sync allocates none once the pool has grown. */
    static final class Op {
        MemorySegment segment;
        long offset, length, done;
        int channel, section, peer, batch;
        /** Decremented when the op completes. */
        int[] pending;
        Op next;
        /** A receive waiting for a stashed frame still being read. */
        boolean waiting;
    }

    /** A frame that arrived before its receive was posted. */
    static final class Stash {
        int section, channel;
        long length, done;
        MemorySegment bytes;
        /** Where the bytes are kept: grown as needed, kept while the stash is pooled. */
        final org.lpf4j.superstep.NativeBuffer buffer = new org.lpf4j.superstep.NativeBuffer();
        /** A receive posted while this frame was still being read: it takes the bytes when they are complete. */
        Op waiter;
        /** A payload to read from the sender's memory ({@link SingleCopy}): its address there (else 0), its slot, its connection. */
        long remote;
        int remoteSlot;
        Conn remoteFrom;
        Stash next;

        boolean complete() { return done == length; }
    }

    /** One peer: its two connections (each without a channel until it is made), and whether it died. */
    private static final class Peer {
        final int rank;
        /** The main connection: both ways' frames except the higher rank's large payloads. */
        final Conn shared;
        /** The connection the higher rank dialled: the higher rank's large payloads only. */
        final Conn large;
        /** Where this process writes its large payloads to the peer, and where it reads the peer's. */
        final Conn largeOut, largeIn;
        /** Whether this process dials the main connection, or its large one, and has not heard back. */
        boolean dialsMain, dialsLarge;
        boolean dead;
        String death;

        Peer(int me, int rank) {
            this.rank = rank;
            boolean lower = me < rank;
            this.shared = new Conn(this);
            this.large = new Conn(this);
            this.largeOut = lower ? shared : large;
            this.largeIn = lower ? large : shared;
        }

        boolean writing() { return shared.writing() || large.writing(); }

        void cancelKeys() {
            if (shared.key != null) shared.key.cancel();
            if (large.key != null) large.key.cancel();
        }

        void closeChannels() {
            shared.close();
            large.close();
        }
    }

    /** The state of one connection with a peer: what is being read from it, and what waits to be written to it. */
    private static final class Conn {
        final Peer peer;
        /** The peer's rank. */
        final int rank;
        /** Null until the connection is made (frames sent before are staged and written then). */
        SocketChannel channel;
        SelectionKey key;
        /** Bytes read from the socket and not parsed yet: [inStart, inEnd) of {@link #in}. */
        final ByteBuffer inBuffer = ByteBuffer.allocateDirect(IN_BYTES);
        final MemorySegment in = MemorySegment.ofBuffer(inBuffer);
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
        final ByteBuffer outBuffer = ByteBuffer.allocateDirect(OUT_BYTES);
        final MemorySegment out = MemorySegment.ofBuffer(outBuffer);
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
        /** Whether frames are staged on it while its socket is being made (counted in {@link Mesh#held}). */
        boolean held;
        /** The rings that carry this connection's frames when the peer shares this host (the socket then carries wake-ups), or null. */
        ShmLink link;
        /** The peer closed a linked connection's socket: it has ended once its ring is read. */
        boolean eof;

        Conn(Peer peer) {
            this.peer = peer;
            this.rank = peer.rank;
        }

        boolean writing() { return outEnd > outStart || largeOp != null || sendHead != null; }

        void close() { if (channel != null) closeQuietly(channel); }
    }

    /** @return the connections of this mesh whose socket is open (made on first use): for the engine's counts */
    int openConnections() {
        int n = 0;
        for (Conn c : conns) if (c.channel != null && c.channel.isOpen()) n++;
        return n;
    }

    private Mesh(int rank, int size, byte[] key, long jobId, ServerSocketChannel server, List<InetSocketAddress> all,
                 long setupMillis, long spinNanos, long timeoutNanos, Consumer<String> log) throws IOException {
        this.rank = rank;
        this.size = size;
        this.timeoutNanos = timeoutNanos;
        this.log = log;
        this.peers = new Peer[size];
        this.selector = Selector.open();
        this.postedHead = new Op[Frame.CHANNELS * size];
        this.postedTail = new Op[Frame.CHANNELS * size];
        this.stashHead = new Stash[Frame.CHANNELS * size];
        this.stashTail = new Stash[Frame.CHANNELS * size];
        int local = 1;
        for (int r = 0; r < size; r++) if (r != rank && isLocal(all.get(r))) local++;
        this.crowded = WaitRequest.crowded(local, Runtime.getRuntime().availableProcessors());
        this.spinNanos = spinNanos >= 0 ? spinNanos : 1_000L * (crowded ? SPIN_MICROS_CROWDED : SPIN_MICROS_OWN_CORE);
        this.connections = new Connections(rank, size, key, jobId, server, all, setupMillis, log, selector,
                LocalPeers.open(key, jobId, rank, all, log));
    }

    /** @return whether the process at {@code a} runs on this machine (its address is one of this machine's) */
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
        m.connections.start();
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
                flush(); // the receive may be done already: the send must still leave before join returns
                while (pending[0] > 0 || held > 0) {
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

    // ---- connections ----

    /** A send needs {@code c}, which has no channel yet: dials it, or waits for the connection that makes it. */
    private void want(Conn c) {
        Peer p = c.peer;
        if (p.dead || dropped) return;
        if (c == p.shared) {
            // No dial when the peer's main connection was accepted or is being dialled already.
            if (!p.dialsMain) p.dialsMain = connections.dialMain(p.rank);
        } else if (p.shared.channel == null) {
            want(p.shared); // the large connection comes after the main one (attach asks for it then)
        } else if (!p.dialsMain && !p.dialsLarge) {
            // The large connection is dialled once the main one is in place and no dial of this rank's
            // could still become it (a main connection both dialled at once: the higher rank's is the large one).
            p.dialsLarge = true;
            connections.dialLarge(p.rank);
        }
    }

    /** Takes the connections made (and dials that failed) since the last call into the mesh. */
    private void admit() {
        for (Connections.Ready r; (r = connections.poll()) != null; ) {
            Peer p = peerOf(r.rank());
            if (r.intent() == Handshake.MAIN) p.dialsMain = false;
            else if (r.intent() == Handshake.LARGE) p.dialsLarge = false;
            if (r.failure() != null) {
                died(p.shared, r.failure());
                continue;
            }
            Conn c = r.role() == Handshake.MAIN ? p.shared : p.large;
            if (p.dead || dropped || c.channel != null) {
                if (c.channel != null) log.accept("lpf4j net: rank " + rank + " dropped a second connection of role " + r.role() + " from rank " + r.rank());
                r.discard();
                continue;
            }
            attach(c, r.channel(), r.link());
        }
    }

    private void attach(Conn c, SocketChannel ch, ShmLink link) {
        try {
            ch.configureBlocking(false);
            c.channel = ch;
            c.key = ch.register(selector, SelectionKey.OP_READ, c);
            unhold(c);
        } catch (IOException e) {
            closeQuietly(ch);
            if (link != null) link.unmap();
            c.channel = null;
            died(c, "the connection to pid " + c.rank + " broke as it was made (" + e.getMessage() + ")");
            return;
        }
        conns = java.util.Arrays.copyOf(conns, conns.length + 1);
        conns[conns.length - 1] = c;
        if (link != null) {
            c.link = link;
            linked = java.util.Arrays.copyOf(linked, linked.length + 1);
            linked[linked.length - 1] = c;
        }
        linkedOnly = linked.length == conns.length;
        Peer p = c.peer;
        if (c == p.shared) {
            // News of deaths reaches a process that connects later, too.
            for (Peer q : peers) if (q != null && q.dead && q != p) stageFail(c, q.rank, q.death);
            if (p.large.writing() && p.large.channel == null) want(p.large);
        }
        if (c.writing()) {
            c.dirty = true;
            anyDirty = true;
        }
        interest(c);
    }

    /** Makes the main connection to {@code r} now, unless it is made or being made: a process that waits for {@code r} sees it die. */
    void connect(int r) {
        Peer p = peer(r);
        if (p.shared.channel == null) want(p.shared);
    }

    /** @return connections this process dialled that were made (for tests and counts) */
    int connectionsDialled() { return connections.dialled(); }

    /** @return connections this process accepted (for tests and counts) */
    int connectionsAccepted() { return connections.accepted(); }

    /** @return whether this process holds a connection with rank {@code r} */
    boolean connectedTo(int r) {
        Peer p = peers[r];
        return p != null && (p.shared.channel != null || p.large.channel != null);
    }

    /** @return the ranks this process holds a connection with */
    int peersConnected() {
        int n = 0;
        for (int r = 0; r < size; r++) if (connectedTo(r)) n++;
        return n;
    }

    /** @return this process's rank */
    int rank() { return rank; }

    /** @return the peers whose main connection goes through shared memory (for tests) */
    int linkedPeers() {
        int n = 0;
        for (Conn c : linked) if (c == c.peer.shared) n++;
        return n;
    }

    /** @return the connections (of either role) that go through shared memory (for tests) */
    int linkedConnections() { return linked.length; }

    /** @return the payloads this process read from its peers' memory, and that they read from its ({@link SingleCopy}; for tests) */
    long[] singleCopies() { return new long[] {single.reads, single.sends}; }

    /** @return the mesh's processes */
    int size() { return size; }

    /** Tells the mesh which superstep the active section is in, for the deadline's message. */
    void atSuperstep(long superstep) { this.superstep = superstep; }

    /** Continues the numbering after {@code section}: a member of a section rank 0 numbered numbers its children as rank 0 does. */
    void resumeSectionsAt(int section) { sections = section; }

    /** @return the number of a new section of this mesh: every member that starts the same sections in the same order gets the same numbers */
    int nextSection() { return ++sections; }

    /**
     * Makes {@code section} the one whose frames receives match, with members ranks
     * {@code 0 .. members - 1}; frames of it that came early are taken from the stash.
     */
    void activate(int section, int members) {
        activeSection = section;
        activeMembers = members;
        for (Conn c : conns) if (c.parked && c.parkedSection != section) unpark(c);
    }

    /** A parked frame that no receive of the active section will take (its section ended): it is stashed as it arrives. */
    private void unpark(Conn c) {
        c.parked = false;
        c.readStash = stash(c.rank, c.parkedChannel, c.parkedSection, c.readLength);
        read(c); // what the buffer holds of it, and what follows
        interest(c);
    }

    // ---- posting ----

    private Op op() {
        Op o = free;
        if (o == null) return new Op();
        free = o.next;
        o.next = null;
        return o;
    }

    private Op op(int channel, MemorySegment segment, long offset, long length, int peer, int[] pending, int batch) {
        Op o = op();
        o.segment = segment;
        o.offset = offset;
        o.length = length;
        o.done = 0;
        o.channel = channel;
        o.peer = peer;
        o.pending = pending;
        o.batch = batch;
        return o;
    }

    private void recycle(Op o) {
        o.segment = null;
        o.pending = null;
        o.waiting = false;
        o.next = free;
        free = o;
    }

    /**
     * Posts a send of a frame on {@code channel} of {@code section}; {@code pending[batch]} counts
     * it until its bytes are written or copied. A small frame is copied at once into the peer's
     * staging buffer (and counts for nothing), a large one is written from {@code from} in place;
     * either is written at the next wait ({@link #await}, {@link #progress}), with the frames
     * staged before it, in as few writes as the socket takes.
     */
    void send(int channel, int section, MemorySegment from, long offset, long length, int to, int[] pending, int batch) {
        Conn p = channel == LARGE ? peer(to).largeOut : peer(to).shared;
        if (single.takes(p.link, channel, from, length)) { // the peer reads it: a descriptor goes in its place
            offset = single.post(channel, from, offset, length, to, pending, batch);
            channel = SingleCopy.frameOf(channel);
            from = single.table();
            length = SingleCopy.DESCRIPTOR;
            pending = single.frames;
            batch = 0;
        }
        if (p.channel == null) want(p);
        if (p.sendHead == null && p.largeOp == null && length <= COPY_MAX && room(p, Frame.HEADER + length)) {
            stageHeader(p, channel, section, length);
            MemorySegment.copy(from, offset, p.out, p.outEnd, length);
            p.outEnd += (int) length;
        } else {
            Op o = op(channel, from, offset, length, to, pending, batch);
            o.section = section;
            pending[batch]++;
            if (p.sendHead == null) p.sendHead = o; else p.sendTail.next = o;
            p.sendTail = o;
            stage(p);
        }
        if (!p.dirty) {
            p.dirty = true;
            anyDirty = true;
        }
        if (p.channel == null && !p.held && !p.peer.dead) {
            p.held = true;
            held++;
        }
    }

    /** A connection made, or a peer dead: its staged frames no longer hold a wait. */
    private void unhold(Conn c) {
        if (c.held) {
            c.held = false;
            held--;
        }
    }

    /** @return whether {@code bytes} more fit in the peer's staging buffer (moving what is left of it to its start if need be) */
    private static boolean room(Conn p, long bytes) {
        if (OUT_BYTES - p.outEnd >= bytes) return true;
        if (p.outStart == 0) return false;
        int left = p.outEnd - p.outStart;
        MemorySegment.copy(p.out, p.outStart, p.out, 0, left);
        p.outStart = 0;
        p.outEnd = left;
        return OUT_BYTES - left >= bytes;
    }

    private static void stageHeader(Conn p, int channel, int section, long length) {
        int at = p.outEnd;
        p.out.set(INT, at, channel); // the channel, then three zero bytes
        p.out.set(INT, at + 4, section);
        p.out.set(LONG, at + 8, length);
        p.outEnd = at + Frame.HEADER;
    }

    /** Stages the queued sends in order: small ones whole (they complete), up to and including the header of a large one. */
    private void stage(Conn p) {
        while (p.largeOp == null && p.sendHead != null) {
            Op o = p.sendHead;
            boolean small = o.length <= COPY_MAX;
            if (!room(p, Frame.HEADER + (small ? o.length : 0))) return;
            p.sendHead = o.next;
            if (p.sendHead == null) p.sendTail = null;
            o.next = null;
            stageHeader(p, o.channel, o.section, o.length);
            if (small) {
                MemorySegment.copy(o.segment, o.offset, p.out, p.outEnd, o.length);
                p.outEnd += (int) o.length;
                o.pending[o.batch]--;
                recycle(o);
            } else {
                p.largeOp = o;
            }
        }
    }

    /** Posts a receive of the next frame on {@code channel} from {@code from} into {@code length} bytes at {@code offset} of {@code into}. */
    void receive(int channel, MemorySegment into, long offset, long length, int from, int[] pending, int batch) {
        Conn p = channel == LARGE ? peer(from).largeIn : peer(from).shared;
        Op o = op(channel, into, offset, length, from, pending, batch);
        pending[batch]++;
        int q = channel * size + from;
        Stash s = stashHead[q];
        // A later section's frame, or one that a receive posted earlier waits for, is not this receive's.
        while (s != null && (s.waiter != null || s.section != activeSection && channel != Frame.CONTROL)) s = s.next;
        if (s != null) {
            if (s.length > length) throw broken(p, "a frame of " + s.length + " bytes on channel " + channel + " for a receive of " + length);
            if (s.complete()) {
                take(q, s, o);
            } else {
                s.waiter = o;
                o.waiting = true;
            }
            return;
        }
        if (p.parked && p.parkedChannel == channel && postedHead[q] == null) {
            // The frame that waits for this receive: its bytes go straight into it from here on.
            if (p.readLength > length) throw broken(p, "a frame of " + p.readLength + " bytes on channel " + channel + " for a receive of " + length);
            p.parked = false;
            p.readOp = o;
            read(p);
            interest(p);
            return;
        }
        if (postedHead[q] == null) postedHead[q] = o; else postedTail[q].next = o;
        postedTail[q] = o;
    }

    /** Copies a complete stashed frame into its receive and completes it. */
    private void take(int q, Stash s, Op o) {
        if (s.remote != 0) readRemote(s.remoteFrom, s.remote, s.remoteSlot, o, s.length);
        else if (s.length > 0) MemorySegment.copy(s.bytes, 0, o.segment, o.offset, s.length);
        unstash(q, s);
        o.pending[o.batch]--;
        recycle(o);
    }

    /** Takes {@code s} off its queue and back to the pool (its bytes are invalid afterwards). */
    private void unstash(int q, Stash s) {
        Stash prev = null;
        for (Stash c = stashHead[q]; c != null; prev = c, c = c.next) {
            if (c != s) continue;
            if (prev == null) stashHead[q] = c.next; else prev.next = c.next;
            if (stashTail[q] == c) stashTail[q] = prev;
            break;
        }
        stashed[s.channel]--;
        s.bytes = null;
        s.waiter = null;
        s.next = freeStash;
        freeStash = s;
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
            for (Stash s = stashHead[q]; s != null; s = s.next) {
                if (channel != Frame.CONTROL && s.section != activeSection) continue;
                if (!s.complete()) break;
                byte[] bytes = s.bytes.asSlice(0, s.length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                unstash(q, s);
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
        if (stashed[channel] == 0) return -1;
        for (int r = 0; r < activeMembers; r++) {
            if (r == rank) continue;
            int q = channel * size + r;
            for (Stash s = stashHead[q]; s != null; s = s.next) {
                if (s.section != activeSection || s.waiter != null) continue;
                if (!s.complete()) break;
                if (s.length > length) throw broken(peers[r].shared, "a frame of " + s.length + " bytes on channel " + channel + " for " + length);
                if (s.length > 0) MemorySegment.copy(s.bytes, 0, into, offset, s.length);
                unstash(q, s);
                return r;
            }
        }
        return -1;
    }

    private Peer peer(int r) {
        if (r < 0 || r >= size || r == rank) throw new IllegalArgumentException("rank " + r + " of a mesh of " + size + " at rank " + rank);
        Peer p = peers[r];
        return p != null ? p : peerOf(r);
    }

    /** @return rank {@code r}'s peer, made on first use (its connections are made when a send needs them) */
    private Peer peerOf(int r) {
        Peer p = peers[r];
        if (p == null) peers[r] = p = new Peer(rank, r);
        return p;
    }

    // ---- progress ----

    /**
     * Writes what was staged, then moves frames until {@code pending[batch]} is 0 and no frame
     * waits in this process's buffers for its connection to be made.
     *
     * @param waitingFor what the wait is, for the deadline's message (e.g. "sync at superstep 12")
     */
    void await(int[] pending, int batch, String waitingFor) {
        flush();
        long start = System.nanoTime();
        while (pending[batch] > 0 || held > 0) progress(start, waitingFor, -1);
        flush(); // what the last step staged (the acknowledgement of a payload read), for a peer that waits for it
    }

    /**
     * A frame of {@link SingleCopy}'s came from the peer of {@code c}: an acknowledgement completes
     * a send of this process's; a descriptor is read into the receive of its payload if that is
     * posted, else stashed as that payload's frame until its receive comes.
     */
    private void remote(Conn c, Stash s) {
        int q = s.channel * size + c.rank;
        if (s.channel == Frame.REMOTE_DONE) {
            int slot = s.section;
            unstash(q, s);
            if (!single.acknowledged(slot, c.rank)) throw broken(c, "an acknowledgement of a single-copy send " + slot + " it was not sent");
            return;
        }
        int channel = s.length == SingleCopy.DESCRIPTOR ? SingleCopy.channel(s.bytes) : -1, section = s.section, slot = 0;
        long address = 0, length = -1;
        if (channel >= 0) {
            slot = SingleCopy.slot(s.bytes);
            address = SingleCopy.address(s.bytes);
            length = SingleCopy.length(s.bytes);
        }
        unstash(q, s);
        if (channel < 0 || SingleCopy.frameOf(channel) != s.channel || channel != LARGE && channel != Transport.Channel.REPLY.ordinal()
                || address == 0 || length < 0 || length > Frame.MAX_LENGTH || c.link == null) {
            throw broken(c, "a malformed single-copy descriptor (channel " + channel + ", length " + length + ")");
        }
        q = channel * size + c.rank;
        Op o = postedHead[q];
        if (o != null && section == activeSection) {
            if (length > o.length) throw broken(c, "a frame of " + length + " bytes on channel " + channel + " for a receive of " + o.length);
            postedHead[q] = o.next;
            if (postedHead[q] == null) postedTail[q] = null;
            o.next = null;
            readRemote(c, address, slot, o, length);
            o.done = length;
            o.pending[o.batch]--;
            recycle(o);
            return;
        }
        Stash r = stash(c.rank, channel, section, 0); // no bytes here: they stay in the sender's memory
        r.length = length;
        r.done = length;
        r.remote = address;
        r.remoteSlot = slot;
        r.remoteFrom = c;
    }

    /** Reads a payload from the memory of {@code c}'s peer into receive {@code o} and acknowledges it (the caller completes {@code o}); the peer dies if that fails. */
    private void readRemote(Conn c, long address, int slot, Op o, long length) {
        String failed = single.read(c.link, address, o.segment, o.offset, length);
        if (failed != null) {
            died(c, "pid " + c.rank + "'s payload could not be read: " + failed + "; its JVM died or was killed");
            throw new Transport.Stopped(c.peer.death);
        }
        send(Frame.REMOTE_DONE, slot, MemorySegment.NULL, 0, 0, c.rank, single.frames, 0);
    }

    /** Writes the frames staged since the last write to every peer, as far as the sockets take them. */
    private void flush() {
        if (!anyDirty) return;
        anyDirty = false;
        for (Conn c : conns) if (c.dirty) write(c);
    }

    /**
     * One step of progress: writes what the sockets take, reads what arrived, spinning for a while
     * (yielding the core when this machine runs more of the mesh's processes than it has cores, as
     * Open MPI does when oversubscribed: a spin that keeps its core delays the very peers it waits
     * for) and then blocking in {@code select}; throws {@link Transport.Stopped} when a member of
     * the active section died or the deadline passed.
     */
    void progress(long waitStart, String waitingFor, int waitedPeer) {
        admit();
        flush();
        checkAlive();
        try {
            boolean moved = linked.length > 0 && pollLinks();
            // Linked peers only: the sockets carry wake-ups and ends, a look now and then suffices while spinning.
            int ready = linkedOnly && (++polls & 63) != 0 ? 0 : selector.selectNow(onReady);
            if (ready == 0 && !moved) {
                long now = System.nanoTime();
                if (timeoutNanos > 0 && now - waitStart > timeoutNanos) {
                    throw new Transport.Stopped(stoppedMessage(waitingFor, waitedPeer));
                }
                // Spin while bytes flow: a large transfer arrives in pieces, and blocking between
                // them makes every piece a wake-up of this thread (an IPI on a VM).
                if (now - Math.max(waitStart, lastMoved) < spinNanos) {
                    if (crowded) Thread.yield(); else Thread.onSpinWait();
                    return;
                }
                // Before blocking: an interrupted waiter (a host framework cancelling its task) gives up.
                if (Thread.interrupted()) {
                    throw new Transport.Stopped("rank " + rank + " was interrupted while it waited (" + waitingFor + ")");
                }
                if (linked.length > 0 && !armLinks()) return;
                selector.select(onReady, timeoutNanos > 0 ? Math.max(1, Math.min(10, timeoutNanos / 4_000_000)) : 10);
                for (Conn c : linked) c.link.disarm();
            }
        } catch (IOException e) {
            throw new Transport.Stopped("rank " + rank + ": the mesh's selector failed: " + e);
        }
        checkAlive();
    }

    /** Moves what the linked connections' rings allow. @return whether any had something to do */
    private boolean pollLinks() {
        boolean any = false;
        for (Conn c : linked) {
            if (c.peer.dead) continue;
            boolean open = c.channel.isOpen();
            if (!open) {
                // Closed here without its end (as by a test's dropped connections): the peer is gone for this process.
                if (!c.eof) died(c, "the connection to pid " + c.rank + " was closed");
                continue;
            }
            if (!c.parked && c.link.readable()) {
                read(c);
                any = true;
            }
            if (c.writing() && c.link.writable()) {
                write(c);
                any = true;
            }
            if (c.eof && c.channel.isOpen() && !c.peer.dead && !c.parked && !c.link.readable()) ended(c);
        }
        return any;
    }

    /**
     * Before blocking: asks every linked peer to wake this process by its socket when it writes
     * (or, while this process has bytes for it, reads), then looks again.
     *
     * @return true if nothing came meanwhile (block), false if something did (the flags are cleared)
     */
    private boolean armLinks() {
        for (Conn c : linked) if (!c.peer.dead) c.link.arm(c.writing());
        for (Conn c : linked) {
            if (c.peer.dead || !c.channel.isOpen()) continue;
            if (!c.parked && c.link.readable() || c.writing() && c.link.writable() || c.eof) {
                for (Conn d : linked) d.link.disarm();
                return false;
            }
        }
        return true;
    }

    /** A linked connection's socket is readable: wake-ups (the rings are then polled), or the peer's end. */
    private void wokenUp(Conn c) {
        try {
            if (c.link.drainWakeUps()) return;
        } catch (IOException e) {
            died(c, "the connection to pid " + c.rank + " broke (" + e.getMessage() + "): its JVM died or was killed");
            return;
        }
        c.key.cancel();
        c.eof = true;
        if (c.link.in == null) { // it carried nothing this way: its end says nothing (the other connection's does)
            c.saidBye = true;
            ended(c);
            return;
        }
        if (!c.parked) read(c); // what the peer wrote before its end
        if (!c.peer.dead && c.channel.isOpen() && !c.parked && !c.link.readable()) ended(c);
    }

    /** What a selection does with each ready connection (one object, so that selecting allocates nothing). */
    private final Consumer<SelectionKey> onReady = k -> {
        Conn c = (Conn) k.attachment();
        if (!k.isValid()) return;
        if (c.link != null) {
            wokenUp(c);
            return;
        }
        if (k.isReadable()) read(c);
        if (k.isValid() && k.isWritable()) write(c);
    };

    private String stoppedMessage(String waitingFor, int waitedPeer) {
        List<String> quiet = new ArrayList<>();
        if (waitedPeer >= 0) {
            quiet.add(Integer.toString(waitedPeer));
        } else {
            for (int r = 0; r < activeMembers; r++) {
                if (r == rank) continue;
                boolean waits = false;
                for (int c = 0; c < Frame.CHANNELS && !waits; c++) waits = postedHead[c * size + r] != null;
                if (waits || peers[r] != null && peers[r].writing()) quiet.add(Integer.toString(r));
            }
        }
        return "pid " + (quiet.isEmpty() ? "?" : String.join(", ", quiet)) + " sent nothing this process waited for within "
                + timeoutNanos / 1_000_000 + " ms (" + waitingFor + " of superstep " + superstep + " of section " + activeSection
                + " at pid " + rank
                + "): stopped, frozen or much slower than the deadline allows";
    }

    private void checkAlive() {
        for (int r = 0; r < activeMembers; r++) {
            Peer p = peers[r];
            if (p != null && p.dead) throw new Transport.Stopped(p.death);
        }
    }

    /** Segments whose whole-segment buffer is cached, and the buffers, replaced round-robin. */
    private final MemorySegment[] viewOf = new MemorySegment[32];
    private final ByteBuffer[] views = new ByteBuffer[32];
    private int nextView;

    /**
     * @return a buffer over {@code length} bytes at {@code offset} of {@code segment}, for one
     *         socket call: the segment's cached whole-segment buffer, positioned (every call on the
     *         mesh is made by one thread at a time, and each sets position and limit afresh), so
     *         that the protocol's buffers, used at every sync, cost no allocation
     */
    private ByteBuffer view(MemorySegment segment, long offset, long length) {
        if (segment.byteSize() > Integer.MAX_VALUE) return segment.asSlice(offset, length).asByteBuffer();
        ByteBuffer b = null;
        for (int i = 0; i < viewOf.length; i++) {
            if (viewOf[i] == segment) {
                b = views[i];
                break;
            }
        }
        if (b == null) {
            b = segment.asByteBuffer();
            viewOf[nextView] = segment;
            views[nextView] = b;
            nextView = (nextView + 1) % viewOf.length;
        }
        b.limit((int) (offset + length)).position((int) offset);
        return b;
    }

    /** Sets what the selector watches on a connection: reading unless a frame is parked, writing while frames wait. */
    private void interest(Conn c) {
        if (c.key == null) return;
        int want = c.link != null ? SelectionKey.OP_READ // its socket's wake-ups and end; the rings are polled
                : (c.parked ? 0 : SelectionKey.OP_READ) | (c.writing() ? SelectionKey.OP_WRITE : 0);
        if (c.key.isValid() && c.key.interestOps() != want) c.key.interestOps(want);
    }

    /**
     * Writes the staged bytes (and a large payload after them, in the same gathering write) and
     * stages the sends queued behind them, until all are written or the socket takes no more.
     */
    private void write(Conn p) {
        if (p.channel == null) return; // written once the connection is made
        p.dirty = false;
        try {
            writeSome(p);
            interest(p);
        } catch (IOException e) {
            // What the peer sent before it went (a death notice naming another process, its goodbye)
            // may still wait in the socket: read it first, so that the death named is the first cause.
            if (!p.peer.dead && !p.parked) read(p);
            if (p.peer.dead) return;
            if (p.saidBye) { // it left in order (after a failure of its own): what it was sent is moot
                p.key.cancel();
                p.close();
            } else {
                died(p, "the connection to pid " + p.rank + " broke while sending (" + e.getMessage() + "): its JVM died or was killed");
            }
        }
    }

    private void writeSome(Conn p) throws IOException {
        while (true) {
            stage(p);
            int staged = p.outEnd - p.outStart;
            Op large = p.largeOp;
            long chunk = large == null ? 0 : Math.min(large.length - large.done, WRITE_CHUNK);
            long want = staged + chunk, n;
            if (want == 0) return;
            p.outBuffer.limit(p.outEnd).position(p.outStart);
            if (p.link != null) {
                if (!p.channel.isOpen()) throw new java.nio.channels.ClosedChannelException(); // as a socket would: the peer ended
                n = p.link.write(p.out, p.outStart, staged, large == null ? null : large.segment,
                        large == null ? 0 : large.offset + large.done, chunk);
            } else if (chunk == 0) {
                n = p.channel.write(p.outBuffer);
            } else if (staged == 0) {
                n = p.channel.write(view(large.segment, large.offset + large.done, chunk));
            } else {
                p.gather[0] = p.outBuffer;
                p.gather[1] = view(large.segment, large.offset + large.done, chunk);
                n = p.channel.write(p.gather, 0, 2);
            }
            if (n > 0) lastMoved = System.nanoTime();
            int fromStaged = (int) Math.min(n, staged);
            p.outStart += fromStaged;
            if (p.outStart == p.outEnd) p.outStart = p.outEnd = 0;
            if (large != null) {
                large.done += n - fromStaged;
                if (large.done == large.length) {
                    p.largeOp = null;
                    large.pending[large.batch]--;
                    recycle(large);
                }
            }
            if (n < want) return;
        }
    }

    /**
     * Reads what the connection has: into the peer's buffer, from which frames are parsed and
     * their payloads copied to their receives (or stashes), or straight into a receive's memory
     * when a long payload is still to come.
     */
    private void read(Conn p) {
        try {
            // As a socket would: a linked connection that ended, or carries nothing this way, has nothing more to read.
            if (p.link != null && (p.link.in == null || !p.channel.isOpen())) throw new java.nio.channels.ClosedChannelException();
            while (!p.parked) {
                parse(p);
                if (p.parked) return;
                long left = p.readLength - p.readDone;
                if (p.inFrame && p.inStart == p.inEnd && left >= DIRECT_MIN) {
                    MemorySegment target = p.readOp != null ? p.readOp.segment : p.readStash.bytes;
                    long base = p.readOp != null ? p.readOp.offset : 0;
                    long chunk = Math.min(left, 1L << 30);
                    int n = p.link != null ? p.link.read(target, base + p.readDone, chunk)
                            : p.channel.read(view(target, base + p.readDone, chunk));
                    if (n < 0) {
                        ended(p);
                        return;
                    }
                    if (n > 0) lastMoved = System.nanoTime();
                    p.readDone += n;
                    if (p.readOp == null) p.readStash.done = p.readDone;
                    if (p.readDone == p.readLength) endFrame(p);
                    else if (n < chunk) return;
                    continue;
                }
                int space = IN_BYTES - p.inEnd;
                p.inBuffer.limit(IN_BYTES).position(p.inEnd);
                int n = p.link != null ? p.link.read(p.in, p.inEnd, space) : p.channel.read(p.inBuffer);
                if (n < 0) {
                    ended(p);
                    return;
                }
                if (n > 0) lastMoved = System.nanoTime();
                p.inEnd += n;
                if (n < space) {
                    parse(p);
                    return;
                }
            }
        } catch (IOException e) {
            died(p, "the connection to pid " + p.rank + " broke (" + e.getMessage() + "): its JVM died or was killed");
        }
    }

    /** Takes the frames in the peer's buffer: headers, and payloads to their receives or stashes, until it is empty or a frame parks. */
    private void parse(Conn p) {
        while (!p.parked) {
            if (!p.inFrame) {
                if (p.inEnd - p.inStart < Frame.HEADER) break;
                int at = p.inStart;
                int word = p.in.get(INT, at), section = p.in.get(INT, at + 4);
                long length = p.in.get(LONG, at + 8);
                p.inStart = at + Frame.HEADER;
                startFrame(p, word, section, length);
                continue;
            }
            int n = (int) Math.min(p.inEnd - p.inStart, p.readLength - p.readDone);
            if (n == 0) break;
            if (p.readOp != null) {
                MemorySegment.copy(p.in, p.inStart, p.readOp.segment, p.readOp.offset + p.readDone, n);
            } else {
                MemorySegment.copy(p.in, p.inStart, p.readStash.bytes, p.readDone, n);
            }
            p.inStart += n;
            p.readDone += n;
            if (p.readOp == null) p.readStash.done = p.readDone;
            if (p.readDone == p.readLength) endFrame(p);
        }
        if (p.inStart == p.inEnd) {
            p.inStart = p.inEnd = 0;
        } else if (!p.parked && p.inStart > 0) { // part of a header: to the front, so that the rest fits behind it
            int left = p.inEnd - p.inStart;
            MemorySegment.copy(p.in, p.inStart, p.in, 0, left);
            p.inStart = 0;
            p.inEnd = left;
        }
    }

    private void startFrame(Conn p, int word, int section, long length) {
        int channel = word & 0xff;
        if (channel >= Frame.CHANNELS || (word >>> 8) != 0 || length < 0 || length > Frame.MAX_LENGTH) {
            throw broken(p, "a malformed frame header (channel " + channel + ", length " + length + ")");
        }
        if (channel == Frame.BYE) {
            p.saidBye = true;
            return;
        }
        if (channel == Frame.FAIL && length > FAIL_MAX) throw broken(p, "a death notice of " + length + " bytes");
        // The connection the higher rank dialled carries its large payloads and nothing else.
        if (p == p.peer.large && (channel != LARGE && channel != Frame.REMOTE_LARGE || p != p.peer.largeIn)) {
            throw broken(p, "a frame on channel " + channel + " over the connection of its large payloads");
        }
        int q = channel * size + p.rank;
        Op o = postedHead[q];
        p.readLength = length;
        p.readDone = 0;
        p.inFrame = true;
        p.readOp = null;
        p.readStash = null;
        if (o != null && section == activeSection) {
            if (length > o.length) {
                throw broken(p, "a frame of " + length + " bytes on channel " + channel + " for a receive of " + o.length);
            }
            postedHead[q] = o.next;
            if (postedHead[q] == null) postedTail[q] = null;
            o.next = null;
            p.readOp = o;
        } else if (channel == LARGE && section == activeSection && length >= PARK_MIN) {
            // A large put's payload before its receive: the receive comes without any later frame of this peer
            // (the streams that announce it came before it), so reading from this peer waits for it.
            p.parked = true;
            p.parkedChannel = channel;
            p.parkedSection = section;
            interest(p);
            return;
        } else {
            p.readStash = stash(p.rank, channel, section, length);
        }
        if (length == 0) endFrame(p);
    }

    /** @return a new stash for a frame from rank {@code from} that came before its receive, at the end of its queue */
    private Stash stash(int from, int channel, int section, long length) {
        int q = channel * size + from;
        Stash s = freeStash;
        if (s == null) s = new Stash(); else freeStash = s.next;
        s.next = null;
        s.waiter = null;
        s.remote = 0;
        s.remoteFrom = null;
        s.done = 0;
        s.section = section;
        s.channel = channel;
        s.length = length;
        s.bytes = length == 0 ? MemorySegment.NULL : s.buffer.atLeast(length);
        if (stashHead[q] == null) stashHead[q] = s; else stashTail[q].next = s;
        stashTail[q] = s;
        stashed[channel]++;
        return s;
    }

    private void endFrame(Conn p) {
        p.inFrame = false;
        if (p.readOp != null) {
            Op o = p.readOp;
            p.readOp = null;
            o.done = p.readLength;
            o.pending[o.batch]--;
            recycle(o);
        } else {
            Stash s = p.readStash;
            p.readStash = null;
            s.done = s.length;
            if (s.channel == Frame.FAIL) heard(p, s);
            else if (s.channel >= Frame.REMOTE_LARGE) remote(p, s);
            else if (s.waiter != null) take(s.channel * size + p.rank, s, s.waiter);
        }
    }

    private void ended(Conn p) {
        p.key.cancel();
        p.close();
        if (!p.saidBye || p.inFrame) died(p, "pid " + p.rank + "'s JVM closed its connection without a goodbye"
                + (p.inFrame ? " half-way through a frame" : "") + ": it died or was killed");
    }

    /** Marks the peer of {@code c} dead, for {@code why}, closes both its connections and tells the others. */
    private void died(Conn c, String why) {
        if (markDead(c.peer, why + " (seen by pid " + rank + ")")) spread(c.rank, c.peer.death);
    }

    /** @return whether {@code p} was not known dead before */
    private boolean markDead(Peer p, String why) {
        if (p.dead) return false;
        unhold(p.shared);
        unhold(p.large);
        p.dead = true;
        p.death = why;
        p.cancelKeys();
        p.closeChannels();
        return true;
    }

    /** The longest death notice ({@link Frame#FAIL}) a peer may send. */
    private static final int FAIL_MAX = 4096;
    /** What sends of death notices count (nothing waits for them). */
    private final int[] failSends = new int[1];

    /** Sends a death notice of {@code dead} to every peer this process holds a main connection with (the dead one aside). */
    private void spread(int dead, String why) {
        if (dropped) return;
        for (Peer q : peers) {
            if (q == null || q.dead || q.shared.channel == null) continue;
            stageFail(q.shared, dead, why);
            write(q.shared);
        }
    }

    /** Stages a death notice of {@code dead} on {@code c}, behind what is staged there. */
    private void stageFail(Conn c, int dead, String why) {
        byte[] text = why.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] notice = new byte[4 + Math.min(text.length, FAIL_MAX - 4)];
        MemorySegment n = MemorySegment.ofArray(notice);
        n.set(INT, 0, dead);
        System.arraycopy(text, 0, notice, 4, notice.length - 4);
        send(Frame.FAIL, activeSection, n, 0, notice.length, c.rank, failSends, 0);
    }

    /** A death notice came from the peer of {@code c}: the process it names died; this one passes the news on. */
    private void heard(Conn c, Stash s) {
        int dead = s.length >= 4 ? s.bytes.get(INT, 0) : -1;
        String why = s.length >= 4 ? new String(s.bytes.asSlice(4, s.length - 4).toArray(ValueLayout.JAVA_BYTE),
                java.nio.charset.StandardCharsets.UTF_8) : "";
        unstash(Frame.FAIL * size + c.rank, s);
        if (dead < 0 || dead >= size) throw broken(c, "a death notice of rank " + dead);
        if (dead == rank || dropped) return; // a peer that lost its connections to this one: it will be told otherwise
        Peer p = peerOf(dead);
        if (markDead(p, why)) spread(dead, why);
    }

    private Transport.Stopped broken(Conn c, String what) {
        died(c, "pid " + c.rank + " sent " + what + ": not this job's protocol; its connections are closed");
        log.accept("lpf4j net: rank " + rank + ": " + c.peer.death);
        return new Transport.Stopped(c.peer.death);
    }

    /**
     * For tests: writes an empty frame on {@code channel} over the connection that carries this
     * process's large payloads to {@code to} (made first), as a broken peer would when
     * {@code channel} is not theirs and this process is the higher rank.
     */
    void sendOnLargeConnectionForTest(int to, int channel) {
        Peer p = peer(to);
        long start = System.nanoTime();
        for (Conn need : new Conn[] {p.shared, p.largeOut}) {
            while (need.channel == null) {
                want(need);
                progress(start, "a connection for the test", to);
            }
        }
        Conn c = p.largeOut;
        stageHeader(c, channel, activeSection, 0);
        c.dirty = true;
        anyDirty = true;
        flush();
    }

    /** For tests: closes every connection and the listening socket without a goodbye, as the death of this JVM would. */
    void dropConnectionsForTest() {
        dropped = true;
        connections.close();
        for (Peer p : peers) if (p != null) p.closeChannels();
    }

    /** How long a linked connection's goodbye may wait for its peer to make room in the ring. */
    private static final long BYE_WAIT_NANOS = 1_000_000_000L;

    /** Writes what is staged for a linked connection's peer, then a goodbye, as far as its ring takes them within {@link #BYE_WAIT_NANOS}. */
    private void sayByeOverRing(Conn c) throws IOException {
        if (c.link.out == null) return; // nothing goes this way: its socket's end is its goodbye
        long until = System.nanoTime() + BYE_WAIT_NANOS;
        for (int pass = 0; pass < 2; pass++) {
            while (c.writing()) {
                writeSome(c);
                if (!c.writing()) break;
                if (System.nanoTime() - until > 0) return; // the peer reads no more: it sees an end without goodbye
                Thread.yield();
            }
            if (pass == 0) {
                room(c, Frame.HEADER);
                stageHeader(c, Frame.BYE, 0, 0);
            }
        }
    }

    /** Says goodbye to every peer and closes every connection. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        admit(); // a connection made just now gets its goodbye too
        // A goodbye on both connections of every peer: each side reads both, and a connection that
        // ends without one means a dead process.
        for (Conn c : conns) {
            if (c.peer.dead || !c.channel.isOpen()) continue;
            try {
                ByteBuffer bye = ByteBuffer.allocate(Frame.HEADER).order(ByteOrder.LITTLE_ENDIAN);
                bye.put(0, (byte) Frame.BYE);
                c.key.cancel();
                selector.selectNow(); // deregisters the cancelled key, so that the channel can block
                c.channel.configureBlocking(true);
                if (c.link != null) {
                    sayByeOverRing(c);
                    c.channel.shutdownOutput();
                    continue;
                }
                writeSome(c); // what is staged goes before the goodbye
                while (bye.hasRemaining()) c.channel.write(bye);
                c.channel.shutdownOutput();
            } catch (IOException | RuntimeException e) {
                // the peer is gone already: nothing to say goodbye to
            }
        }
        for (Peer p : peers) if (p != null) p.closeChannels();
        connections.close();
        for (Conn c : linked) c.link.unmap();
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
        for (Stash st = freeStash; st != null; st = st.next) st.buffer.close();
        for (Stash head : stashHead) for (Stash st = head; st != null; st = st.next) st.buffer.close();
    }
}
