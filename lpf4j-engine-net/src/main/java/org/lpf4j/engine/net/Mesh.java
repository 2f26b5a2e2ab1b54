package org.lpf4j.engine.net;

import org.lpf4j.superstep.Transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
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
import java.util.function.Consumer;

/**
 * The TCP connections of one job's processes: a full mesh (one connection per pair, made when the
 * job starts, each authenticated by {@link Handshake}), and the progress engine that moves frames
 * ({@link Frame}) over it. No thread of its own: the thread that waits (a sync, a collective, the
 * runtime's loop) makes the progress, reading and writing every connection through one
 * {@link Selector} with nonblocking channels, so progress does not depend on a thread per peer.
 *
 * <p><b>Matching.</b> A receive is posted for (channel, peer) and takes that pair's next frame of
 * the active section, in order. Bytes go between the caller's memory and the socket without a
 * copy (its segments as direct buffers); a frame that arrives before its receive is posted (a
 * stream sent before the round, a cause, a runtime command) is kept in memory of its own until the
 * receive comes, and then copied.
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
    /** How long a wait spins on {@code selectNow} before it blocks in {@code select}. */
    private final long spinNanos;
    private final long timeoutNanos;
    private final int rank, size;
    private final Peer[] peers;
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
    private boolean closed;

    /** One posted send or receive. Pooled: a sync allocates none once the pool has grown. */
    static final class Op {
        final ByteBuffer header = ByteBuffer.allocateDirect(Frame.HEADER).order(ByteOrder.LITTLE_ENDIAN);
        MemorySegment segment;
        long offset, length, done;
        int channel, peer, batch;
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

    /** The state of one connection. */
    private static final class Peer {
        final int rank;
        final SocketChannel channel;
        SelectionKey key;
        final ByteBuffer header = ByteBuffer.allocateDirect(Frame.HEADER).order(ByteOrder.LITTLE_ENDIAN);
        /** The frame being read: its receive, or its stash. */
        Op readOp;
        Stash readStash;
        long readLength, readDone;
        boolean inFrame;
        /** Sends in order; the head may be partly written. */
        Op sendHead, sendTail;
        long headerSent;
        boolean saidBye, dead;
        String death;

        Peer(int rank, SocketChannel channel) {
            this.rank = rank;
            this.channel = channel;
        }
    }

    private Mesh(int rank, int size, SocketChannel[] channels, long spinNanos, long timeoutNanos, Consumer<String> log)
            throws IOException {
        this.rank = rank;
        this.size = size;
        this.spinNanos = spinNanos;
        this.timeoutNanos = timeoutNanos;
        this.log = log;
        this.peers = new Peer[size];
        this.selector = Selector.open();
        this.postedHead = new Op[Frame.CHANNELS * size];
        this.postedTail = new Op[Frame.CHANNELS * size];
        this.stashHead = new Stash[Frame.CHANNELS * size];
        this.stashTail = new Stash[Frame.CHANNELS * size];
        for (int r = 0; r < size; r++) {
            if (r == rank) continue;
            SocketChannel ch = channels[r];
            ch.configureBlocking(false);
            Peer p = new Peer(r, ch);
            p.key = ch.register(selector, SelectionKey.OP_READ, p);
            peers[r] = p;
        }
    }

    /**
     * Connects the mesh: connects to every lower rank at its address in {@code all} and accepts
     * every higher one on {@code server} (bound by the caller, whose address {@code all} holds at
     * this rank), each connection authenticated; a connection that does not prove the key is
     * logged and dropped while the set-up goes on. The caller closes {@code server} afterwards:
     * nothing listens while the job runs.
     *
     * @param setupMillis the longest the whole set-up may take
     * @throws IOException naming the ranks that could not be reached in time
     */
    static Mesh connect(int rank, int size, byte[] key, long jobId, ServerSocketChannel server, List<InetSocketAddress> all,
                        long setupMillis, long spinNanos, long timeoutNanos, Consumer<String> log) throws IOException {
        SocketChannel[] channels = new SocketChannel[size];
        long deadline = System.nanoTime() + setupMillis * 1_000_000L;
        try {
            if (all.size() != size) throw new IOException("the boot exchange gave " + all.size() + " addresses for " + size + " processes");
            for (int to = 0; to < rank; to++) {
                channels[to] = dial(all.get(to), key, jobId, rank, size, to, deadline);
            }
            server.configureBlocking(true);
            server.socket().setSoTimeout(50);
            // Handshakes run on virtual threads of their own, each bounded by HANDSHAKE_MILLIS, so
            // that silent or slow connections (an attack, a port scan) cannot hold up the real ones.
            java.util.concurrent.BlockingQueue<Object[]> accepted = new java.util.concurrent.LinkedBlockingQueue<>();
            java.util.concurrent.atomic.AtomicInteger handshaking = new java.util.concurrent.atomic.AtomicInteger();
            int expected = size - 1 - rank;
            while (expected > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) throw new IOException("rank " + rank + ": " + missing(channels, rank + 1, size)
                        + " did not connect within " + setupMillis + " ms");
                SocketChannel ch = null;
                try {
                    ch = server.socket().accept().getChannel();
                } catch (java.net.SocketTimeoutException e) {
                    // no one new: look at the finished handshakes
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
                                accepted.add(new Object[] {c, Handshake.accept(c, key, jobId, rank, size).rank()});
                            } catch (IOException | RuntimeException e) {
                                log.accept("lpf4j net: rank " + rank + " refused a connection from " + remote(c) + ": "
                                        + e.getMessage());
                                try {
                                    c.close();
                                } catch (IOException ignored) {
                                    // refused anyway
                                }
                            } finally {
                                handshaking.decrementAndGet();
                            }
                        });
                    }
                }
                for (Object[] a; (a = accepted.poll()) != null; ) {
                    SocketChannel c = (SocketChannel) a[0];
                    int from = (Integer) a[1];
                    if (from <= rank || channels[from] != null) {
                        log.accept("lpf4j net: rank " + rank + " refused a connection from " + remote(c) + ": rank " + from
                                + " connected twice or out of turn");
                        c.close();
                        continue;
                    }
                    channels[from] = c;
                    expected--;
                }
            }
            return new Mesh(rank, size, channels, spinNanos, timeoutNanos, log);
        } catch (IOException | RuntimeException e) {
            for (SocketChannel c : channels) if (c != null) c.close();
            throw e;
        }
    }

    private static SocketChannel dial(InetSocketAddress at, byte[] key, long jobId, int rank, int size, int to, long deadline)
            throws IOException {
        IOException last = null;
        while (System.nanoTime() < deadline) {
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

    private static String missing(SocketChannel[] channels, int from, int to) {
        List<String> m = new ArrayList<>();
        for (int r = from; r < to; r++) if (channels[r] == null) m.add(Integer.toString(r));
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

    /** Posts a send of a frame on {@code channel} of the active section; {@code pending[batch]} counts it until written. */
    void send(int channel, int section, MemorySegment from, long offset, long length, int to, int[] pending, int batch) {
        Peer p = peer(to);
        Op o = op(channel, from, offset, length, to, pending, batch);
        o.header.clear();
        o.header.put(0, (byte) channel).put(1, (byte) 0).put(2, (byte) 0).put(3, (byte) 0).putInt(4, section).putLong(8, length);
        pending[batch]++;
        boolean idle = p.sendHead == null;
        if (idle) p.sendHead = o; else p.sendTail.next = o;
        p.sendTail = o;
        if (idle) {
            p.headerSent = 0;
            write(p);
        }
    }

    /** Posts a receive of the next frame on {@code channel} from {@code from} into {@code length} bytes at {@code offset} of {@code into}. */
    void receive(int channel, MemorySegment into, long offset, long length, int from, int[] pending, int batch) {
        Peer p = peer(from);
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

    private Peer peer(int r) {
        if (r < 0 || r >= size || r == rank) throw new IllegalArgumentException("rank " + r + " of a mesh of " + size + " at rank " + rank);
        return peers[r];
    }

    // ---- progress ----

    /**
     * Moves frames until {@code pending[batch]} is 0.
     *
     * @param waitingFor what the wait is, for the deadline's message (e.g. "sync at superstep 12")
     */
    void await(int[] pending, int batch, String waitingFor) {
        long start = System.nanoTime();
        while (pending[batch] > 0) progress(start, waitingFor, -1);
    }

    /**
     * One step of progress: writes what the sockets take, reads what arrived, spinning for a while
     * and then blocking in {@code select}; throws {@link Transport.Stopped} when a member of the
     * active section died or the deadline passed.
     */
    void progress(long waitStart, String waitingFor, int waitedPeer) {
        checkAlive();
        try {
            int ready = selector.selectNow(onReady);
            if (ready == 0) {
                long now = System.nanoTime();
                if (timeoutNanos > 0 && now - waitStart > timeoutNanos) {
                    throw new Transport.Stopped(stoppedMessage(waitingFor, waitedPeer));
                }
                if (now - waitStart < spinNanos) {
                    Thread.onSpinWait();
                    return;
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
        Peer p = (Peer) k.attachment();
        if (!k.isValid()) return;
        if (k.isReadable()) read(p);
        if (k.isValid() && k.isWritable()) write(p);
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
                if (waits || peers[r].sendHead != null) quiet.add(Integer.toString(r));
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

    private void write(Peer p) {
        try {
            while (p.sendHead != null) {
                Op o = p.sendHead;
                if (p.headerSent < Frame.HEADER) {
                    o.header.position((int) p.headerSent).limit(Frame.HEADER);
                    int n = p.channel.write(o.header);
                    p.headerSent += n;
                    if (p.headerSent < Frame.HEADER) break;
                }
                while (o.done < o.length) {
                    long chunk = Math.min(o.length - o.done, 1L << 30);
                    int n = p.channel.write(view(o.segment, o.offset + o.done, chunk));
                    o.done += n;
                    if (n < chunk) break;
                }
                if (o.done < o.length) break;
                p.sendHead = o.next;
                if (p.sendHead == null) p.sendTail = null;
                p.headerSent = 0;
                o.pending[o.batch]--;
                recycle(o);
            }
            int want = p.sendHead != null ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ;
            if (p.key.isValid() && p.key.interestOps() != want) p.key.interestOps(want);
        } catch (IOException e) {
            died(p, "the connection to pid " + p.rank + " broke while sending (" + e.getMessage() + "): its JVM died or was killed");
        }
    }

    private void read(Peer p) {
        try {
            while (true) {
                if (!p.inFrame) {
                    int n = p.channel.read(p.header);
                    if (n < 0) {
                        ended(p);
                        return;
                    }
                    if (p.header.hasRemaining()) return;
                    startFrame(p);
                    if (!p.inFrame) continue; // an empty frame, or a goodbye
                }
                MemorySegment target;
                long base;
                if (p.readOp != null) {
                    target = p.readOp.segment;
                    base = p.readOp.offset;
                } else {
                    target = p.readStash.bytes;
                    base = 0;
                }
                long chunk = Math.min(p.readLength - p.readDone, 1L << 30);
                int n = p.channel.read(view(target, base + p.readDone, chunk));
                if (n < 0) {
                    ended(p);
                    return;
                }
                p.readDone += n;
                if (p.readOp == null) p.readStash.done = p.readDone;
                if (p.readDone < p.readLength) {
                    if (n < chunk) return;
                    continue;
                }
                endFrame(p);
            }
        } catch (IOException e) {
            died(p, "the connection to pid " + p.rank + " broke (" + e.getMessage() + "): its JVM died or was killed");
        }
    }

    private void startFrame(Peer p) {
        ByteBuffer h = p.header;
        int channel = h.get(0) & 0xff, section = h.getInt(4);
        long length = h.getLong(8);
        h.clear();
        if (channel >= Frame.CHANNELS || h.get(1) != 0 || h.get(2) != 0 || h.get(3) != 0 || length < 0 || length > Frame.MAX_LENGTH) {
            throw broken(p, "a malformed frame header (channel " + channel + ", length " + length + ")");
        }
        if (channel == Frame.BYE) {
            p.saidBye = true;
            return;
        }
        int q = channel * size + p.rank;
        Op o = postedHead[q];
        if (o != null && section == activeSection) {
            if (length > o.length) {
                throw broken(p, "a frame of " + length + " bytes on channel " + channel + " for a receive of " + o.length);
            }
            postedHead[q] = o.next;
            if (postedHead[q] == null) postedTail[q] = null;
            o.next = null;
            p.readOp = o;
            p.readStash = null;
        } else {
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
            p.readOp = null;
            p.readStash = s;
        }
        p.readLength = length;
        p.readDone = 0;
        p.inFrame = true;
        if (length == 0) endFrame(p);
    }

    private void endFrame(Peer p) {
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

    private void ended(Peer p) throws IOException {
        p.key.cancel();
        p.channel.close();
        if (!p.saidBye || p.inFrame) died(p, "pid " + p.rank + "'s JVM closed its connection without a goodbye"
                + (p.inFrame ? " half-way through a frame" : "") + ": it died or was killed");
        else p.dead = false;
    }

    private void died(Peer p, String why) {
        if (p.dead) return;
        p.dead = true;
        p.death = why;
        if (p.key != null) p.key.cancel();
        try {
            p.channel.close();
        } catch (IOException ignored) {
            // closing a broken connection
        }
    }

    private Transport.Stopped broken(Peer p, String what) {
        died(p, "pid " + p.rank + " sent " + what + ": not this job's protocol; its connection is closed");
        log.accept("lpf4j net: rank " + rank + ": " + p.death);
        return new Transport.Stopped(p.death);
    }

    /** For tests: closes every connection without a goodbye, as the death of this JVM would. */
    void dropConnectionsForTest() {
        for (Peer p : peers) {
            if (p == null) continue;
            try {
                p.channel.close();
            } catch (IOException ignored) {
                // gone either way
            }
        }
    }

    /** Says goodbye to every peer and closes every connection. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        for (Peer p : peers) {
            if (p == null || p.dead || !p.channel.isOpen()) continue;
            try {
                ByteBuffer bye = ByteBuffer.allocate(Frame.HEADER).order(ByteOrder.LITTLE_ENDIAN);
                bye.put(0, (byte) Frame.BYE);
                p.key.cancel();
                selector.selectNow(); // deregisters the cancelled key, so that the channel can block
                p.channel.configureBlocking(true);
                while (bye.hasRemaining()) p.channel.write(bye);
                p.channel.shutdownOutput();
            } catch (IOException | RuntimeException e) {
                // the peer is gone already: nothing to say goodbye to
            }
        }
        for (Peer p : peers) {
            if (p == null) continue;
            try {
                p.channel.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
        for (Stash st = freeStash; st != null; st = st.next) st.buffer.close();
        for (Stash head : stashHead) for (Stash st = head; st != null; st = st.next) st.buffer.close();
    }
}
