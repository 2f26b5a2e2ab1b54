package org.lpf4j.engine.net;

import org.lpf4j.superstep.Transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The TCP connections of one job's processes: a full mesh (two connections per pair, made when
 * the job starts, each authenticated by {@link Handshake}), and the progress engine that moves
 * frames ({@link Frame}) over it. No thread of its own: the thread that waits (a sync, a collective, the
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
 * <p><b>Two connections per pair.</b> Each process of a pair dials the other. Large payloads
 * ({@code Transport.Channel.LARGE}) go on the connection their sender dialled; every other frame,
 * both ways, on the one the lower rank dialled. Over one connection, two processes that write
 * large payloads to each other at once slow each other down (each one's data reaches a socket its
 * owner holds locked while it writes, and waits in that socket's backlog); over a connection per
 * direction, a small frame's answer no longer carries the acknowledgement of the frame it answers
 * (docs/performance.md: the large transfers gain, the small exchanges keep their latency).
 *
 * <p><b>Failure.</b> A connection that ends without the peer's goodbye frame, or breaks, marks the
 * peer dead; every wait of a section that peer belongs to then throws {@link Transport.Stopped}
 * naming it, at once. With a deadline ({@code syncTimeoutMillis}) a wait that sees no frame it
 * needs for that long throws the same, naming the peers it waited for.
 *
 * <p>Used by one thread at a time.
 */
final class Mesh implements AutoCloseable {
    /** How long one connection may take to prove the key. */
    static final int HANDSHAKE_MILLIS = 5_000;
    /** Handshakes under way at once while the mesh is set up; more connections are refused at once. */
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
    /** System.nanoTime() when a socket call last moved bytes: a wait spins until it has been idle this long. */
    private long lastMoved;
    private final long timeoutNanos;
    private final int rank, size;
    private final Peer[] peers;
    /** Every connection, both of every peer. */
    private final Conn[] conns;
    private final Selector selector;
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
        Stash next;

        boolean complete() { return done == length; }
    }

    /** One peer: its two connections, and whether it died. */
    private static final class Peer {
        final int rank;
        /** The connection the lower rank dialled: both ways' frames except the higher rank's large payloads. */
        final Conn shared;
        /** The connection the higher rank dialled: the higher rank's large payloads only. */
        final Conn large;
        /** Where this process writes its large payloads to the peer, and where it reads the peer's. */
        final Conn largeOut, largeIn;
        boolean dead;
        String death;

        Peer(int me, int rank, SocketChannel dialled, SocketChannel accepted) {
            this.rank = rank;
            boolean lower = me < rank;
            this.shared = new Conn(this, lower ? dialled : accepted);
            this.large = new Conn(this, lower ? accepted : dialled);
            this.largeOut = lower ? shared : large;
            this.largeIn = lower ? large : shared;
        }

        boolean writing() { return shared.writing() || large.writing(); }

        void cancelKeys() {
            shared.key.cancel();
            large.key.cancel();
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
        final SocketChannel channel;
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

        Conn(Peer peer, SocketChannel channel) {
            this.peer = peer;
            this.rank = peer.rank;
            this.channel = channel;
        }

        boolean writing() { return outEnd > outStart || largeOp != null || sendHead != null; }

        void close() { closeQuietly(channel); }
    }

    /** @return the connections of this mesh whose socket is open (two per live peer): for the engine's counts */
    int openConnections() {
        int n = 0;
        for (Conn c : conns) if (c.channel.isOpen()) n++;
        return n;
    }

    private Mesh(int rank, int size, SocketChannel[] outs, SocketChannel[] ins, long spinNanos, long timeoutNanos,
                 Consumer<String> log) throws IOException {
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
        for (int r = 0; r < size; r++) {
            if (r == rank) continue;
            Peer p = new Peer(rank, r, outs[r], ins[r]);
            for (Conn c : new Conn[] {p.shared, p.large}) {
                c.channel.configureBlocking(false);
                c.key = c.channel.register(selector, SelectionKey.OP_READ, c);
            }
            peers[r] = p;
            if (isLocal(ins[r])) local++;
        }
        this.crowded = WaitRequest.crowded(local, Runtime.getRuntime().availableProcessors());
        this.spinNanos = spinNanos >= 0 ? spinNanos : 1_000L * (crowded ? SPIN_MICROS_CROWDED : SPIN_MICROS_OWN_CORE);
        List<Conn> all = new ArrayList<>();
        for (Peer p : peers) if (p != null) all.addAll(List.of(p.shared, p.large));
        this.conns = all.toArray(new Conn[0]);
    }

    /** @return whether the peer of {@code ch} runs on this machine (its address is one of this machine's) */
    private static boolean isLocal(SocketChannel ch) {
        try {
            if (!(ch.getRemoteAddress() instanceof InetSocketAddress a) || a.getAddress() == null) return false;
            java.net.InetAddress ip = a.getAddress();
            return ip.isLoopbackAddress() || java.net.NetworkInterface.getByInetAddress(ip) != null;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Connects the mesh: dials every other rank at its address in {@code all} while it accepts
     * every other rank's connection on {@code server} (bound by the caller, whose address
     * {@code all} holds at this rank), each connection authenticated; of a pair's two connections,
     * the one the lower rank dialled carries both ways' frames and the other the higher rank's
     * large payloads. A connection that does not prove the key is logged and dropped while the
     * set-up goes on. The caller closes {@code server} afterwards: nothing listens while the job
     * runs.
     *
     * @param setupMillis the longest the whole set-up may take
     * @param spinNanos   how long a wait polls before it blocks; negative: chosen by whether the
     *                    job's processes on this machine outnumber its cores
     * @throws IOException naming the ranks that could not be reached in time
     */
    static Mesh connect(int rank, int size, byte[] key, long jobId, ServerSocketChannel server, List<InetSocketAddress> all,
                        long setupMillis, long spinNanos, long timeoutNanos, Consumer<String> log) throws IOException {
        SocketChannel[] outs = new SocketChannel[size], ins = new SocketChannel[size];
        long deadline = System.nanoTime() + setupMillis * 1_000_000L;
        // Dials and handshakes run on virtual threads, each bounded in time, so that every process
        // answers the others' dials while its own are under way, and silent or slow connections
        // (an attack, a port scan) cannot hold up the real ones. What they produce after a failed
        // set-up is closed by them (abandoned) or here (still queued).
        BlockingQueue<Object[]> dialed = new LinkedBlockingQueue<>();
        BlockingQueue<Object[]> accepted = new LinkedBlockingQueue<>();
        AtomicBoolean abandoned = new AtomicBoolean();
        try {
            if (all.size() != size) throw new IOException("the boot exchange gave " + all.size() + " addresses for " + size + " processes");
            for (int to = 0; to < size; to++) {
                if (to == rank) continue;
                int peer = to;
                Thread.ofVirtual().name("lpf4j-net-dial").start(() -> {
                    Object result;
                    try {
                        result = dial(all.get(peer), key, jobId, rank, size, peer, deadline, abandoned);
                    } catch (IOException | RuntimeException e) {
                        result = e;
                    }
                    hand(dialed, new Object[] {peer, result}, abandoned);
                });
            }
            server.configureBlocking(true);
            server.socket().setSoTimeout(20);
            AtomicInteger handshaking = new AtomicInteger();
            int toAccept = size - 1, toDial = size - 1;
            while (toAccept > 0 || toDial > 0) {
                if (deadline - System.nanoTime() <= 0) {
                    throw new IOException("rank " + rank + ": " + (toAccept > 0 ? missing(ins, rank) + " did not connect"
                            : "could not connect to " + missing(outs, rank)) + " within " + setupMillis + " ms");
                }
                SocketChannel ch = null;
                if (toAccept > 0) {
                    try {
                        ch = server.socket().accept().getChannel();
                    } catch (java.net.SocketTimeoutException e) {
                        // no one new: look at the finished handshakes
                    }
                }
                if (ch != null) {
                    if (handshaking.get() >= MAX_HANDSHAKES) {
                        log.accept("lpf4j net: rank " + rank + " refused a connection from " + remote(ch) + ": "
                                + MAX_HANDSHAKES + " handshakes already under way");
                        ch.close();
                    } else {
                        SocketChannel c = ch;
                        handshaking.incrementAndGet();
                        Thread.ofVirtual().name("lpf4j-net-handshake").start(() -> {
                            try {
                                tune(c, HANDSHAKE_MILLIS);
                                hand(accepted, new Object[] {c, Handshake.accept(c, key, jobId, rank, size).rank()}, abandoned);
                            } catch (IOException | RuntimeException e) {
                                log.accept("lpf4j net: rank " + rank + " refused a connection from " + remote(c) + ": "
                                        + e.getMessage());
                                closeQuietly(c);
                            } finally {
                                handshaking.decrementAndGet();
                            }
                        });
                    }
                }
                for (Object[] a; (a = accepted.poll()) != null; ) {
                    SocketChannel c = (SocketChannel) a[0];
                    int from = (Integer) a[1];
                    if (ins[from] != null) {
                        log.accept("lpf4j net: rank " + rank + " refused a connection from " + remote(c) + ": rank " + from
                                + " connected twice");
                        c.close();
                        continue;
                    }
                    ins[from] = c;
                    toAccept--;
                }
                // With every connection accepted, the wait is here instead of in accept.
                Object[] firstDialed = toAccept > 0 ? dialed.poll() : dialed.poll(20, TimeUnit.MILLISECONDS);
                for (Object[] d = firstDialed; d != null; d = dialed.poll()) {
                    if (d[1] instanceof IOException e) throw e;
                    if (d[1] instanceof RuntimeException e) throw e;
                    outs[(Integer) d[0]] = (SocketChannel) d[1];
                    toDial--;
                }
            }
            return new Mesh(rank, size, outs, ins, spinNanos, timeoutNanos, log);
        } catch (InterruptedException e) {
            abandon(abandoned, dialed, accepted, outs, ins);
            Thread.currentThread().interrupt();
            throw new IOException("rank " + rank + " was interrupted while the mesh was set up", e);
        } catch (IOException | RuntimeException e) {
            abandon(abandoned, dialed, accepted, outs, ins);
            throw e;
        }
    }

    /** After a failed set-up: closes every connection made so far, and makes the set-up threads close theirs. */
    private static void abandon(AtomicBoolean abandoned, BlockingQueue<Object[]> dialed,
                                BlockingQueue<Object[]> accepted, SocketChannel[] outs, SocketChannel[] ins) {
        abandoned.set(true);
        for (BlockingQueue<Object[]> q : List.of(dialed, accepted)) {
            for (Object[] a; (a = q.poll()) != null; ) {
                for (Object o : a) if (o instanceof SocketChannel c) closeQuietly(c);
            }
        }
        for (SocketChannel c : outs) if (c != null) closeQuietly(c);
        for (SocketChannel c : ins) if (c != null) closeQuietly(c);
    }

    /** Hands a set-up thread's result to the loop, or closes its connection if the set-up has been abandoned. */
    private static void hand(BlockingQueue<Object[]> to, Object[] result,
                             AtomicBoolean abandoned) {
        to.add(result);
        if (abandoned.get() && to.remove(result)) {
            for (Object o : result) if (o instanceof SocketChannel c) closeQuietly(c);
        }
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing a connection that broke, ended or that nobody will use
        }
    }

    /** Connects to rank {@code to} and proves the key, retrying until {@code deadline} unless the set-up is {@code abandoned}. */
    private static SocketChannel dial(InetSocketAddress at, byte[] key, long jobId, int rank, int size, int to, long deadline,
                                      AtomicBoolean abandoned) throws IOException {
        IOException last = null;
        while (System.nanoTime() < deadline && !abandoned.get()) {
            SocketChannel ch = SocketChannel.open();
            try {
                ch.socket().connect(at, (int) Math.max(1, Math.min(5_000, (deadline - System.nanoTime()) / 1_000_000)));
                tune(ch, 10_000);
                Handshake.connect(ch, key, jobId, rank, size, to);
                return ch;
            } catch (Handshake.Refused e) {
                ch.close();
                throw e;
            } catch (IOException e) {
                ch.close();
                last = e;
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while connecting to rank " + to, ie);
                }
            }
        }
        throw new IOException("rank " + rank + " could not connect to rank " + to + " at " + at
                + (last != null ? ": " + last.getMessage() : ""), last);
    }

    private static void tune(SocketChannel ch, int readTimeoutMillis) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        ch.socket().setSoTimeout(readTimeoutMillis);
    }

    private static String remote(SocketChannel ch) {
        try {
            return String.valueOf(ch.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    /** @return e.g. "ranks 2, 5": the ranks other than {@code me} without a connection in {@code channels} */
    private static String missing(SocketChannel[] channels, int me) {
        List<String> m = new ArrayList<>();
        for (int r = 0; r < channels.length; r++) if (r != me && channels[r] == null) m.add(Integer.toString(r));
        return "rank" + (m.size() == 1 ? " " : "s ") + String.join(", ", m);
    }

    /** @return this process's rank */
    int rank() { return rank; }

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
        if (s.length > 0) MemorySegment.copy(s.bytes, 0, o.segment, o.offset, s.length);
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
        return peers[r];
    }

    // ---- progress ----

    /**
     * Writes what was staged, then moves frames until {@code pending[batch]} is 0.
     *
     * @param waitingFor what the wait is, for the deadline's message (e.g. "sync at superstep 12")
     */
    void await(int[] pending, int batch, String waitingFor) {
        flush();
        long start = System.nanoTime();
        while (pending[batch] > 0) progress(start, waitingFor, -1);
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
        flush();
        checkAlive();
        try {
            int ready = selector.selectNow(onReady);
            if (ready == 0) {
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
                selector.select(onReady, timeoutNanos > 0 ? Math.max(1, Math.min(10, timeoutNanos / 4_000_000)) : 10);
            }
        } catch (IOException e) {
            throw new Transport.Stopped("rank " + rank + ": the mesh's selector failed: " + e);
        }
        checkAlive();
    }

    /** What a selection does with each ready connection (one object, so that selecting allocates nothing). */
    private final Consumer<SelectionKey> onReady = k -> {
        Conn c = (Conn) k.attachment();
        if (!k.isValid()) return;
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
                if (waits || peers[r].writing()) quiet.add(Integer.toString(r));
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
        int want = (c.parked ? 0 : SelectionKey.OP_READ) | (c.writing() ? SelectionKey.OP_WRITE : 0);
        if (c.key.isValid() && c.key.interestOps() != want) c.key.interestOps(want);
    }

    /**
     * Writes the staged bytes (and a large payload after them, in the same gathering write) and
     * stages the sends queued behind them, until all are written or the socket takes no more.
     */
    private void write(Conn p) {
        p.dirty = false;
        try {
            writeSome(p);
            interest(p);
        } catch (IOException e) {
            died(p, "the connection to pid " + p.rank + " broke while sending (" + e.getMessage() + "): its JVM died or was killed");
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
            if (chunk == 0) {
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
            while (!p.parked) {
                parse(p);
                if (p.parked) return;
                long left = p.readLength - p.readDone;
                if (p.inFrame && p.inStart == p.inEnd && left >= DIRECT_MIN) {
                    MemorySegment target = p.readOp != null ? p.readOp.segment : p.readStash.bytes;
                    long base = p.readOp != null ? p.readOp.offset : 0;
                    long chunk = Math.min(left, 1L << 30);
                    int n = p.channel.read(view(target, base + p.readDone, chunk));
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
                int n = p.channel.read(p.inBuffer);
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
        // The connection the higher rank dialled carries its large payloads and nothing else.
        if (p == p.peer.large && (channel != LARGE || p != p.peer.largeIn)) {
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
            if (s.waiter != null) take(s.channel * size + p.rank, s, s.waiter);
        }
    }

    private void ended(Conn p) {
        p.key.cancel();
        p.close();
        if (!p.saidBye || p.inFrame) died(p, "pid " + p.rank + "'s JVM closed its connection without a goodbye"
                + (p.inFrame ? " half-way through a frame" : "") + ": it died or was killed");
    }

    /** Marks the peer of {@code c} dead, for {@code why}, and closes both its connections. */
    private void died(Conn c, String why) {
        Peer p = c.peer;
        if (p.dead) return;
        p.dead = true;
        p.death = why;
        p.cancelKeys();
        p.closeChannels();
    }

    private Transport.Stopped broken(Conn c, String what) {
        died(c, "pid " + c.rank + " sent " + what + ": not this job's protocol; its connections are closed");
        log.accept("lpf4j net: rank " + rank + ": " + c.peer.death);
        return new Transport.Stopped(c.peer.death);
    }

    /**
     * For tests: writes an empty frame on {@code channel} over the connection that carries this
     * process's large payloads to {@code to}, as a broken peer would when {@code channel} is not
     * theirs and this process is the higher rank.
     */
    void sendOnLargeConnectionForTest(int to, int channel) {
        Conn c = peer(to).largeOut;
        stageHeader(c, channel, activeSection, 0);
        c.dirty = true;
        anyDirty = true;
        flush();
    }

    /** For tests: closes every connection without a goodbye, as the death of this JVM would. */
    void dropConnectionsForTest() {
        for (Peer p : peers) if (p != null) p.closeChannels();
    }

    /** Says goodbye to every peer and closes every connection. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
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
                writeSome(c); // what is staged goes before the goodbye
                while (bye.hasRemaining()) c.channel.write(bye);
                c.channel.shutdownOutput();
            } catch (IOException | RuntimeException e) {
                // the peer is gone already: nothing to say goodbye to
            }
        }
        for (Peer p : peers) if (p != null) p.closeChannels();
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
        for (Stash st = freeStash; st != null; st = st.next) st.buffer.close();
        for (Stash head : stashHead) for (Stash st = head; st != null; st = st.next) st.buffer.close();
    }
}
