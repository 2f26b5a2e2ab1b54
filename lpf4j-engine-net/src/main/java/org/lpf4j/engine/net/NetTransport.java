package org.lpf4j.engine.net;

import org.lpf4j.spi.kit.WireCounts;
import org.lpf4j.superstep.NativeBuffer;
import org.lpf4j.superstep.Transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The superstep protocol's {@link Transport} over a {@link Mesh}: one section of the mesh's
 * processes (ranks {@code 0 .. ranks - 1}), its frames marked with the section's number so that
 * sections that follow each other on one mesh never take each other's frames.
 *
 * <p>Point-to-point transfers are frames on the protocol's channels, written from and read into
 * the caller's native memory in place. The round's allreduce is a dissemination in
 * ⌈log2 p⌉ steps (its operations, OR and MAX, are idempotent, so every process ends with the
 * combination of all); the all-to-all of counts is Bruck's (⌈log2 p⌉ messages per process), the sparse
 * consensus ({@link #exchangeNonzero}) one to each process it has a count for; a cause is
 * one frame whose length the receiver learns from its header. Allocates nothing per call once its
 * buffers have grown and the mesh has seen the memory it moves.
 */
final class NetTransport implements Transport {
    /** Batches of this transport: the protocol's two, the collectives' own, and the consensus's receipts and barrier steps. */
    private static final int COLLECTIVE = 2, RECEIPTS = 3, BARRIER = 4;
    /** The first chunk of a stream sent before the round: frames have no eager limit, this bounds the copy of an early arrival. */
    static final long EAGER_BYTES = 64 * 1024 - 64;
    private final Mesh mesh;
    private final int section, me, ranks;
    private final int[] pending = new int[5];
    /** The collectives' frames and causes this rank sends ({@link WireCounts#meta}); the protocol counts its own. */
    private final WireCounts counts;
    private final NativeBuffer mine = new NativeBuffer(), theirs = new NativeBuffer(), longs = new NativeBuffer(), note = new NativeBuffer();

    /**
     * @param mesh    the job's connections (null for a section of one process)
     * @param section the section's number: the same at every member, different from every other
     *                section's on this mesh
     * @param ranks   the section's processes: the mesh's ranks {@code 0 .. ranks - 1}
     */
    NetTransport(Mesh mesh, int section, int ranks) {
        if (mesh == null && ranks != 1) throw new IllegalArgumentException("a section of " + ranks + " processes needs a mesh");
        this.mesh = mesh;
        this.section = section;
        this.me = mesh == null ? 0 : mesh.rank();
        this.ranks = ranks;
        this.counts = mesh == null ? new WireCounts(true, () -> 0, path -> 0)
                : new WireCounts(true, mesh::openConnections, mesh::openConnections);
        if (mesh != null) mesh.activate(section, ranks);
    }

    @Override public WireCounts counts() { return counts; }

    @Override public int rank() { return me; }

    @Override public int ranks() { return ranks; }

    @Override public long eagerBytes() { return EAGER_BYTES; }

    @Override public void beginRound(long superstep) { if (mesh != null) mesh.atSuperstep(superstep); }

    @Override public void leave(String why) { if (mesh != null) mesh.leave(why); }

    @Override
    public void allreduce(MemorySegment buffer, int words, Reduction op) {
        long bytes = 8L * words; // the combination builds up in place at [bytes, 2 * bytes) of buffer
        MemorySegment.copy(buffer, 0, buffer, bytes, bytes);
        if (ranks == 1) return;
        MemorySegment out = mine.atLeast(bytes), in = theirs.atLeast(bytes);
        for (int distance = 1; distance < ranks; distance <<= 1) {
            int to = (me + distance) % ranks, from = (me - distance + ranks) % ranks;
            MemorySegment.copy(buffer, bytes, out, 0, bytes);
            mesh.receive(Frame.COLLECTIVE, in, 0, bytes, from, pending, COLLECTIVE);
            mesh.send(Frame.COLLECTIVE, section, out, 0, bytes, to, pending, COLLECTIVE);
            counts.meta(1, bytes);
            mesh.await(pending, COLLECTIVE, "the round");
            for (int i = 0; i < words; i++) {
                long a = buffer.getAtIndex(ValueLayout.JAVA_LONG, words + i), b = in.getAtIndex(ValueLayout.JAVA_LONG, i);
                buffer.setAtIndex(ValueLayout.JAVA_LONG, words + i, op == Reduction.OR ? a | b : Math.max(a, b));
            }
        }
    }

    /**
     * The all-to-all of one long per pair by Bruck, Ho, Kipnis, Upfal and Weathersby ("Efficient
     * algorithms for all-to-all communications in multiport message-passing systems", IEEE TPDS
     * 1997): the values rotated so that slot i holds the one for rank me + i; in step k every slot
     * whose index has bit k set goes to rank me + 2^k in one message (a value then has 2^k less to
     * go); at the end slot i holds the value from rank me − i. ⌈log2 p⌉ messages per process, each
     * of the slots with bit k set (at most ⌈p/2⌉ longs), instead of p − 1 of one long.
     */
    @Override
    public void alltoallLongs(MemorySegment buffer, long inAt) {
        if (ranks == 1) {
            buffer.set(ValueLayout.JAVA_LONG, inAt, buffer.get(ValueLayout.JAVA_LONG, 0));
            return;
        }
        MemorySegment slots = mine.atLeast(8L * ranks), out = longs.atLeast(8L * ranks), in = theirs.atLeast(8L * ranks);
        for (int i = 0; i < ranks; i++) slots.setAtIndex(ValueLayout.JAVA_LONG, i, buffer.getAtIndex(ValueLayout.JAVA_LONG, (me + i) % ranks));
        for (int bit = 1; bit < ranks; bit <<= 1) {
            int n = 0;
            for (int i = bit; i < ranks; i++) if ((i & bit) != 0) out.setAtIndex(ValueLayout.JAVA_LONG, n++, slots.getAtIndex(ValueLayout.JAVA_LONG, i));
            mesh.receive(Frame.COLLECTIVE, in, 0, 8L * n, (me - bit + ranks) % ranks, pending, COLLECTIVE);
            mesh.send(Frame.COLLECTIVE, section, out, 0, 8L * n, (me + bit) % ranks, pending, COLLECTIVE);
            counts.meta(1, 8L * n);
            mesh.await(pending, COLLECTIVE, "the count exchange");
            n = 0;
            for (int i = bit; i < ranks; i++) if ((i & bit) != 0) slots.setAtIndex(ValueLayout.JAVA_LONG, i, in.getAtIndex(ValueLayout.JAVA_LONG, n++));
        }
        for (int i = 0; i < ranks; i++) {
            buffer.set(ValueLayout.JAVA_LONG, inAt + 8L * ((me - i + ranks) % ranks), slots.getAtIndex(ValueLayout.JAVA_LONG, i));
        }
    }

    /**
     * The sparse way, a nonblocking consensus as the MPI engine's (Hoefler, Siebert and Lumsdaine,
     * PPoPP 2010) over the mesh: a {@link Frame#NOTE} to each rank this one has a count for, which
     * the receiver takes whenever it comes ({@link Mesh#takeAny}) and answers with a
     * {@link Frame#NOTE_ACK} (what makes the send "synchronous"); once every note of this rank was
     * acknowledged it enters a dissemination barrier of ⌈log2 p⌉ steps, answering notes all the
     * while. When the barrier completes every rank has entered it, so every note of the superstep
     * has been taken. Per process: d notes, the acknowledgements of the notes it receives, and
     * ⌈log2 p⌉ barrier frames. Allocates nothing once its buffers have grown.
     */
    @Override
    public void exchangeNonzero(long[] out, long[] in) {
        for (int r = 0; r < ranks; r++) if (r != me) in[r] = 0;
        if (ranks == 1) return;
        MemorySegment values = longs.atLeast(8L * ranks), one = note.atLeast(8);
        for (int r = 0; r < ranks; r++) {
            if (r == me || out[r] == 0) continue;
            values.setAtIndex(ValueLayout.JAVA_LONG, r, out[r]);
            mesh.send(Frame.NOTE, section, values, 8L * r, 8, r, pending, COLLECTIVE);
            counts.meta(1, 8);
            mesh.receive(Frame.NOTE_ACK, one, 0, 0, r, pending, RECEIPTS);
        }
        long start = System.nanoTime();
        int distance = 0; // 0: not in the barrier yet; else the step under way
        while (true) {
            boolean progressed = false;
            for (int from = mesh.takeAny(Frame.NOTE, one, 0, 8); from >= 0; from = mesh.takeAny(Frame.NOTE, one, 0, 8)) {
                in[from] = one.get(ValueLayout.JAVA_LONG, 0);
                mesh.send(Frame.NOTE_ACK, section, one, 0, 0, from, pending, COLLECTIVE);
                counts.meta(1, 0);
                progressed = true;
            }
            if (distance == 0 ? pending[RECEIPTS] == 0 : pending[BARRIER] == 0) {
                distance = distance == 0 ? 1 : distance << 1;
                if (distance >= ranks) break;
                mesh.receive(Frame.COLLECTIVE, one, 0, 0, (me - distance + ranks) % ranks, pending, BARRIER);
                mesh.send(Frame.COLLECTIVE, section, one, 0, 0, (me + distance) % ranks, pending, COLLECTIVE);
                counts.meta(1, 0);
                progressed = true;
            }
            if (!progressed) mesh.progress(start, "the count consensus", -1);
        }
        mesh.await(pending, COLLECTIVE, "the count consensus");
    }

    @Override
    public void receive(int batch, Channel channel, MemorySegment into, long offset, long bytes, int rank) {
        mesh.receive(channel.ordinal(), into, offset, bytes, rank, pending, batch);
    }

    @Override
    public void send(int batch, Channel channel, MemorySegment from, long offset, long bytes, int rank) {
        mesh.send(channel.ordinal(), section, from, offset, bytes, rank, pending, batch);
    }

    @Override
    public void complete(int batch) {
        if (mesh != null) mesh.await(pending, batch, batch == EARLY ? "the streams" : "the transfers");
    }

    @Override
    public int pending() { return pending[EARLY] + pending[REST]; }

    @Override
    public void sendMessage(byte[] bytes, int rank) {
        mesh.send(Frame.MESSAGE, section, MemorySegment.ofArray(bytes), 0, bytes.length, rank, pending, COLLECTIVE);
        counts.meta(1, bytes.length);
        mesh.await(pending, COLLECTIVE, "a cause's sending");
    }

    @Override
    public byte[] receiveMessage(int rank) { return mesh.receiveWhole(Frame.MESSAGE, rank, "a cause"); }

    @Override
    public void close() {
        mine.close();
        theirs.close();
        longs.close();
        note.close();
    }
}
