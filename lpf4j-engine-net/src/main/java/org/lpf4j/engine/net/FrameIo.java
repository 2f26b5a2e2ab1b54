package org.lpf4j.engine.net;

import org.lpf4j.superstep.Transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;

import static org.lpf4j.engine.net.Mesh.COPY_MAX;
import static org.lpf4j.engine.net.Mesh.DIRECT_MIN;
import static org.lpf4j.engine.net.Mesh.PARK_MIN;
import static org.lpf4j.engine.net.Mesh.WRITE_CHUNK;

/**
 * The frame path of one {@link Mesh}: stages sends in a connection's buffer and writes them (a
 * large payload from its own memory, after the staged bytes, in one gathering write), reads a
 * connection's bytes and parses them into frames for their receives or stashes ({@link Matching}),
 * over a socket or a linked connection's rings ({@link ShmLink}) alike. Allocates nothing once the
 * pools have grown: buffers over the caller's segments are cached ({@link #view}). A broken
 * connection or a malformed frame is handed to {@link Failures}. Used by one thread at a time.
 */
final class FrameIo {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** The channel of large puts' payloads. */
    private static final int LARGE = Transport.Channel.LARGE.ordinal();
    private final int size;
    /** Whether frames were staged for some peer since its last write. */
    boolean anyDirty;
    /** System.nanoTime() when a socket call last moved bytes: a wait spins until it has been idle this long. */
    long lastMoved;
    /** Segments whose whole-segment buffer is cached, and the buffers, replaced round-robin. */
    private final MemorySegment[] viewOf = new MemorySegment[32];
    private final ByteBuffer[] views = new ByteBuffer[32];
    private int nextView;
    private ConnTable table;
    private Matching matching;
    private Failures failures;

    /** Large payloads to peers on this host that read them from this process's memory. */
    private final SingleCopy single;

    /** Each of a connection's two buffers ({@link Mesh#bufferBytes}). */
    private final int bufferBytes;

    FrameIo(int size, int bufferBytes, SingleCopy single) {
        this.size = size;
        this.bufferBytes = bufferBytes;
        this.single = single;
    }

    void wire(ConnTable table, Matching matching, Failures failures) {
        this.table = table;
        this.matching = matching;
        this.failures = failures;
    }

    /** For tests: the next large payload this thread sends fails, as a buffer the JVM refuses. */
    static volatile Thread largeSendFailsForTest;

    /**
     * Posts a send of a frame on {@code channel} of {@code section}; {@code pending[batch]} counts
     * it until its bytes are written or copied. A small frame is copied at once into the peer's
     * staging buffer (and counts for nothing), a large one is written from {@code from} in place;
     * either is written at the next wait ({@link Mesh#await}, {@link Mesh#progress}), with the frames
     * staged before it, in as few writes as the socket takes.
     */
    void send(int channel, int section, MemorySegment from, long offset, long length, int to, int[] pending, int batch) {
        if (channel == LARGE && largeSendFailsForTest != null && largeSendFailsForTest == Thread.currentThread()) {
            largeSendFailsForTest = null;
            throw new OutOfMemoryError("Cannot reserve " + length + " bytes of direct buffer memory (injected for a test)");
        }
        Conn p = channel == LARGE ? table.peer(to).largeOut : table.peer(to).shared;
        p.buffers(bufferBytes);
        if (single.takes(p.link, channel, from, length)) { // the peer reads it: a descriptor goes in its place
            offset = single.post(channel, from, offset, length, to, pending, batch);
            channel = SingleCopy.frameOf(channel);
            from = single.table();
            length = SingleCopy.DESCRIPTOR;
            pending = single.frames;
            batch = 0;
        }
        if (p.channel == null) table.want(p);
        if (p.sendHead == null && p.largeOp == null && length <= COPY_MAX && room(p, Frame.HEADER + length)) {
            stageHeader(p, channel, section, length);
            MemorySegment.copy(from, offset, p.out, p.outEnd, length);
            p.outEnd += (int) length;
        } else {
            Op o = matching.op(channel, from, offset, length, to, pending, batch);
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
            table.held++;
        }
    }

    /** @return whether {@code bytes} more fit in the peer's staging buffer (moving what is left of it to its start if need be) */
    static boolean room(Conn p, long bytes) {
        int capacity = p.outBuffer.capacity();
        if (capacity - p.outEnd >= bytes) return true;
        if (p.outStart == 0) return false;
        int left = p.outEnd - p.outStart;
        MemorySegment.copy(p.out, p.outStart, p.out, 0, left);
        p.outStart = 0;
        p.outEnd = left;
        return capacity - left >= bytes;
    }

    static void stageHeader(Conn p, int channel, int section, long length) {
        int at = p.outEnd;
        p.out.set(INT, at, channel); // the channel, then three zero bytes
        p.out.set(INT, at + 4, section);
        p.out.set(LONG, at + 8, length);
        p.outEnd = at + Frame.HEADER;
    }

    /** Stages the queued sends in order: small ones whole (they complete), up to and including the header of a large one. */
    void stage(Conn p) {
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
                matching.recycle(o);
            } else {
                p.largeOp = o;
            }
        }
    }

    /** Writes the frames staged since the last write to every peer, as far as the sockets take them. */
    void flush() {
        if (!anyDirty) return;
        anyDirty = false;
        for (Conn c : table.conns) if (c.dirty) write(c);
    }

    /**
     * @return a buffer over {@code length} bytes at {@code offset} of {@code segment}, for one
     *         socket call: the segment's cached whole-segment buffer, positioned (every call on the
     *         mesh is made by one thread at a time, and each sets position and limit afresh), so
     *         that the protocol's buffers, used at every sync, cost no allocation
     */
    ByteBuffer view(MemorySegment segment, long offset, long length) {
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
    void interest(Conn c) {
        if (c.key == null) return;
        int want = c.link != null ? SelectionKey.OP_READ // its socket's wake-ups and end; the rings are polled
                : (c.parked ? 0 : SelectionKey.OP_READ) | (c.writing() ? SelectionKey.OP_WRITE : 0);
        if (c.key.isValid() && c.key.interestOps() != want) c.key.interestOps(want);
    }

    /**
     * Writes the staged bytes (and a large payload after them, in the same gathering write) and
     * stages the sends queued behind them, until all are written or the socket takes no more.
     */
    void write(Conn p) {
        if (p.channel == null) return; // written once the connection is made
        p.dirty = false;
        try {
            writeSome(p);
            interest(p);
        } catch (IOException e) {
            // What the peer sent before it went (a death notice naming another process, its goodbye)
            // may still wait in the socket: read it first, so that the death named is the first cause.
            if (!p.peer.dead && !p.parked && p.channel.isOpen()) read(p); // a closed one holds nothing, and its read would throw
            if (p.peer.dead) return;
            if (p.saidBye) { // it left in order (after a failure of its own): what it was sent is moot
                p.key.cancel();
                p.close();
            } else {
                failures.died(p, "the connection to pid " + p.rank + " broke while sending (" + e + "): its JVM died or was killed");
            }
        }
    }

    void writeSome(Conn p) throws IOException {
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
                    matching.recycle(large);
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
    void read(Conn p) {
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
                int capacity = p.inBuffer.capacity(), space = capacity - p.inEnd;
                p.inBuffer.limit(capacity).position(p.inEnd);
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
            failures.died(p, "the connection to pid " + p.rank + " broke (" + e + "): its JVM died or was killed");
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
            throw failures.broken(p, "a malformed frame header (channel " + channel + ", length " + length + ")");
        }
        if (channel == Frame.BYE) {
            p.saidBye = true;
            return;
        }
        if (channel == Frame.FAIL && length > Failures.FAIL_MAX) throw failures.broken(p, "a death notice of " + length + " bytes");
        // The connection the higher rank dialled carries its large payloads and nothing else.
        if (p == p.peer.large && (channel != LARGE && channel != Frame.REMOTE_LARGE || p != p.peer.largeIn)) {
            throw failures.broken(p, "a frame on channel " + channel + " over the connection of its large payloads");
        }
        int q = channel * size + p.rank;
        Op o = matching.postedHead[q];
        p.readLength = length;
        p.readDone = 0;
        p.inFrame = true;
        p.readOp = null;
        p.readStash = null;
        if (o != null && section == matching.activeSection) {
            if (length > o.length) {
                throw failures.broken(p, "a frame of " + length + " bytes on channel " + channel + " for a receive of " + o.length);
            }
            matching.postedHead[q] = o.next;
            if (matching.postedHead[q] == null) matching.postedTail[q] = null;
            o.next = null;
            p.readOp = o;
        } else if (channel == LARGE && section == matching.activeSection && length >= PARK_MIN) {
            // A large put's payload before its receive: the receive comes without any later frame of this peer
            // (the streams that announce it came before it), so reading from this peer waits for it.
            p.parked = true;
            p.parkedChannel = channel;
            p.parkedSection = section;
            interest(p);
            return;
        } else {
            p.readStash = matching.stash(p.rank, channel, section, length);
        }
        if (length == 0) endFrame(p);
    }

    private void endFrame(Conn p) {
        p.inFrame = false;
        if (p.readOp != null) {
            Op o = p.readOp;
            p.readOp = null;
            o.done = p.readLength;
            o.pending[o.batch]--;
            matching.recycle(o);
        } else {
            Stash s = p.readStash;
            p.readStash = null;
            s.done = s.length;
            if (s.channel == Frame.FAIL) failures.heard(p, s);
            else if (s.channel >= Frame.REMOTE_LARGE) matching.remote(p, s);
            else if (s.waiter != null) matching.take(s.channel * size + p.rank, s, s.waiter);
        }
    }

    void ended(Conn p) {
        p.key.cancel();
        p.close();
        if (!p.saidBye || p.inFrame) failures.died(p, "pid " + p.rank + "'s JVM closed its connection without a goodbye"
                + (p.inFrame ? " half-way through a frame" : "") + ": it died or was killed");
    }

    /** A parked frame that no receive of the active section will take (its section ended): it is stashed as it arrives. */
    void unpark(Conn c) {
        c.parked = false;
        c.readStash = matching.stash(c.rank, c.parkedChannel, c.parkedSection, c.readLength);
        read(c); // what the buffer holds of it, and what follows
        interest(c);
    }

    /** How long a connection's goodbye may wait for its peer to make room (in the ring, or in the socket's buffers). */
    private static final long BYE_WAIT_NANOS = 1_000_000_000L;

    /**
     * Writes what is staged for a connection's peer, then a goodbye, as far as its ring or
     * socket takes them within {@link #BYE_WAIT_NANOS}: a peer that reads no more (frozen, or
     * named by a deadline) delays the end of this process by that much per connection at most, and sees an end
     * without goodbye if it ever reads again.
     */
    void sayBye(Conn c) throws IOException {
        if (c.link != null && c.link.out == null) return; // nothing goes this way: its socket's end is its goodbye
        long until = System.nanoTime() + BYE_WAIT_NANOS;
        if (!drain(c, until)) return; // the peer reads no more: it sees an end without goodbye
        room(c, Frame.HEADER);
        stageHeader(c, Frame.BYE, 0, 0);
        drain(c, until);
    }

    /**
     * Writes what is staged for a connection's peer as far as its ring or socket takes it within
     * {@link #BYE_WAIT_NANOS} (a death notice this process sends about itself as it leaves).
     */
    void drain(Conn c) throws IOException { drain(c, System.nanoTime() + BYE_WAIT_NANOS); }

    /** @return whether everything staged for {@code c} was written before {@code until} */
    private boolean drain(Conn c, long until) throws IOException {
        while (c.writing()) {
            writeSome(c);
            if (!c.writing()) break;
            if (System.nanoTime() - until > 0) return false;
            Thread.yield();
        }
        return true;
    }
}
