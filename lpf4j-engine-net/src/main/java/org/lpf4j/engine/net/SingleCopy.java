package org.lpf4j.engine.net;

import org.lpf4j.spi.kit.JobKeys;
import org.lpf4j.superstep.Transport;
import org.lpf4j.superstep.shm.ProcessMemory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The single-copy path between processes of one host: a large payload ({@code LARGE}: a put's;
 * {@code REPLY}: a stream of get replies) of at least {@link NetParameters#SHM_SINGLE_COPY_FROM}
 * bytes, from native memory, to a peer on a connection with rings whose probe said the peer may
 * read this process's memory, travels as a descriptor: the peer reads the bytes from this
 * process's memory with {@code process_vm_readv} ({@link ProcessMemory}) straight into its
 * receive, in one copy instead of the rings' two.
 *
 * <p><b>Frames</b> ({@link Frame}): {@link Frame#REMOTE_LARGE} (on the connection that would carry
 * the payload, so that it keeps its place among the other payloads of its channel) or
 * {@link Frame#REMOTE} (a reply stream), whose 24-byte payload is
 * <pre>
 *   0  int   the payload's channel (LARGE or REPLY)
 *   4  int   the sender's slot of this send, which the acknowledgement names
 *   8  long  the payload's address in the sender's memory
 *  16  long  its length
 * </pre>
 * and {@link Frame#REMOTE_DONE} (no payload, the slot in the header's section field): the
 * receiver has read the payload. The receiver reads when the payload's receive is posted (or at
 * once if it is); the sender's send completes only with the acknowledgement, so a sender's
 * {@code complete} (the end of its sync) waits until every peer has read its memory: the source
 * may be reused after the sync, as BSP allows, and a sync with no single-copy transfer waits for
 * nothing more. A read that fails (the sender died: {@code ESRCH}, {@code EFAULT}) fails the
 * receiver's sync naming the sender, as a broken connection does.
 *
 * <p><b>The probe</b> ({@link #probe}), once per connection with rings, after the locality
 * exchange: each side writes a random word into the connection's preamble and sends its pid, the
 * word's address and value; each side reads the other's word with {@code process_vm_readv} and
 * tells whether it found it. A side sends descriptors only to a peer that found its word; where
 * the kernel refuses (Yama {@code ptrace_scope}, a container), the rings carry everything.
 *
 * <p>Cost: per payload, a 40-byte frame, one system call at the receiver and a 16-byte frame
 * back; allocates only when more sends are outstanding at once than ever before. Used by its
 * mesh's one thread at a time.
 */
final class SingleCopy {
    /** Bytes of a descriptor's payload. */
    static final int DESCRIPTOR = 24;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int LARGE = Transport.Channel.LARGE.ordinal(), REPLY = Transport.Channel.REPLY.ordinal();
    /** For tests: every probe fails, as where the kernel refuses cross-memory attach. */
    static volatile boolean probeFailsForTest;
    /** For tests: every read this thread makes fails, as if the sender had died. */
    static volatile Thread readFailsForTest;
    /** For tests: the errno the reads of {@link #readFailsForTest} fail with. */
    static volatile int readFailsWithForTest = ProcessMemory.ESRCH;
    /** The errno of the last {@link #read} that failed for one (0 if it did not). */
    int lastErrno;

    /** The smallest payload that takes this path. */
    private final long from;
    private final ProcessMemory memory = new ProcessMemory();
    /** Payloads the processes of this JVM read from their peers' memory (for tests). */
    static final java.util.concurrent.atomic.LongAdder READS_IN_THIS_JVM = new java.util.concurrent.atomic.LongAdder();
    /** Payloads this process read from its peers' memory, and payloads they read from its (for tests). */
    long reads, sends;
    /** Counts the descriptor and acknowledgement frames while they are queued (nothing waits for them). */
    final int[] frames = new int[1];
    /** The outstanding sends, by slot: their descriptors, what their completion decrements, and their peer (-1: a free slot). */
    private MemorySegment table;
    private int[][] pendingOf;
    private int[] batchOf, peerOf;

    SingleCopy(long from) {
        this.from = from;
        grow(16);
    }

    /** @return the single-copy path of a mesh, as the parameters say */
    static SingleCopy fromParameters() { return new SingleCopy(NetParameters.SHM_SINGLE_COPY_FROM.get()); }

    /** @return whether a send of {@code length} bytes of {@code src} on {@code channel} over a connection with {@code link} takes this path */
    boolean takes(ShmLink link, int channel, MemorySegment src, long length) {
        return link != null && link.peerReads && length >= from && (channel == LARGE || channel == REPLY) && src.isNative()
                && src.scope().isAlive();
    }

    /** @return the frame that carries the descriptor of a payload on {@code channel} */
    static int frameOf(int channel) { return channel == LARGE ? Frame.REMOTE_LARGE : Frame.REMOTE; }

    /**
     * Records a send that takes this path: {@code pending[batch]} counts it until the peer's
     * acknowledgement ({@link #acknowledged}).
     *
     * @return the offset of its descriptor in {@link #table()}
     */
    long post(int channel, MemorySegment src, long offset, long length, int to, int[] pending, int batch) {
        int slot = 0;
        while (slot < peerOf.length && peerOf[slot] >= 0) slot++;
        if (slot == peerOf.length) grow(2 * slot);
        peerOf[slot] = to;
        pendingOf[slot] = pending;
        batchOf[slot] = batch;
        pending[batch]++;
        sends++;
        long at = (long) slot * DESCRIPTOR;
        table.set(INT, at, channel);
        table.set(INT, at + 4, slot);
        table.set(LONG, at + 8, src.address() + offset);
        table.set(LONG, at + 16, length);
        return at;
    }

    /** @return the descriptors (a new segment after growing; a frame queued before still holds the old one) */
    MemorySegment table() { return table; }

    private void grow(int slots) {
        MemorySegment t = Arena.ofAuto().allocate((long) slots * DESCRIPTOR, 8);
        int old = peerOf == null ? 0 : peerOf.length;
        if (old > 0) MemorySegment.copy(table, 0, t, 0, (long) old * DESCRIPTOR);
        table = t;
        pendingOf = pendingOf == null ? new int[slots][] : Arrays.copyOf(pendingOf, slots);
        batchOf = batchOf == null ? new int[slots] : Arrays.copyOf(batchOf, slots);
        peerOf = peerOf == null ? new int[slots] : Arrays.copyOf(peerOf, slots);
        Arrays.fill(peerOf, old, slots, -1);
    }

    /**
     * The peer acknowledged the send of {@code slot}: it completes.
     *
     * @return false if this process has no such send to {@code peer} (a broken peer)
     */
    boolean acknowledged(int slot, int peer) {
        if (slot < 0 || slot >= peerOf.length || peerOf[slot] != peer) return false;
        peerOf[slot] = -1;
        pendingOf[slot][batchOf[slot]]--;
        pendingOf[slot] = null;
        return true;
    }

    static int channel(MemorySegment d) { return d.get(INT, 0); }

    static int slot(MemorySegment d) { return d.get(INT, 4); }

    static long address(MemorySegment d) { return d.get(LONG, 8); }

    static long length(MemorySegment d) { return d.get(LONG, 16); }

    /**
     * Reads a payload the peer of {@code link} described into {@code offset} of {@code into}.
     *
     * @return null if it was read, else why not (for the death of the sender that the caller declares)
     */
    String read(ShmLink link, long address, MemorySegment into, long offset, long length) {
        lastErrno = 0;
        if (!link.readsPeer) return "it sent a payload to read from its memory, which this process cannot read";
        long r = readFailsForTest == Thread.currentThread() ? -readFailsWithForTest
                : memory.read(link.peerPid, address, into, offset, length);
        if (r != length) lastErrno = (int) -r;
        if (r == length) {
            reads++;
            READS_IN_THIS_JVM.increment();
        }
        return r == length ? null : "process_vm_readv of its " + length + " bytes at 0x" + Long.toHexString(address) + " (pid "
                + link.peerPid + ") failed: " + ProcessMemory.describe(r);
    }

    /**
     * Both sides of a connection that got rings, at once, on its thread: finds whether each may
     * read the other's memory, into {@code link} (blocking, bounded by the socket's timeout).
     *
     * @param word 8 bytes of the connection's preamble that are this side's (the peer reads them)
     * @param on   whether this side takes part ({@link NetParameters#SHM_SINGLE_COPY}); if not, neither direction is used
     * @throws IOException if the peer breaks the probe
     */
    static void probe(SocketChannel ch, MemorySegment word, boolean on, ShmLink link, int rank, int peer, Consumer<String> log)
            throws IOException {
        boolean offer = on && ProcessMemory.available();
        long value = ByteBuffer.wrap(JobKeys.random(8)).getLong() | 1;
        word.set(LONG, 0, value);
        ByteBuffer mine = ByteBuffer.allocate(DESCRIPTOR).order(ByteOrder.LITTLE_ENDIAN);
        mine.putLong(offer ? ProcessHandle.current().pid() : 0).putLong(offer ? word.address() : 0).putLong(offer ? value : 0).flip();
        Io.writeFully(ch, mine);
        ByteBuffer theirs = Io.readFully(ch, DESCRIPTOR).order(ByteOrder.LITTLE_ENDIAN);
        long pid = theirs.getLong(), address = theirs.getLong(), expect = theirs.getLong();
        boolean reads = false;
        if (offer && pid > 0) {
            String why;
            if (probeFailsForTest) {
                why = "the probe was told to fail";
            } else {
                MemorySegment got = Arena.ofAuto().allocate(8);
                long r = new ProcessMemory().read(pid, address, got, 0, 8);
                reads = r == 8 && got.get(LONG, 0) == expect;
                why = r != 8 ? ProcessMemory.describe(r) : "it read another value than the peer wrote";
            }
            if (!reads) log.accept("lpf4j net: rank " + rank + " cannot read rank " + peer + "'s memory (process_vm_readv: " + why
                    + "): its payloads come through the rings");
        }
        Io.writeFully(ch, ByteBuffer.wrap(new byte[] {(byte) (reads ? 1 : 0)}));
        byte said = Io.readFully(ch, 1).get(0);
        if (said != 0 && said != 1) throw new IOException("rank " + peer + " broke the single-copy probe (answer " + said + ")");
        link.peerPid = pid;
        link.readsPeer = reads;
        link.peerReads = said == 1 && offer;
    }
}
