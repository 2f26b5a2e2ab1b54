package org.lpf4j.engine.mpi;

import org.lpf4j.superstep.NativeBuffer;
import org.lpf4j.superstep.Transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The {@link Transport} of MPI point-to-point calls on a section's communicator:
 * {@code MPI_Isend}/{@code MPI_Irecv} (split at 1 GiB), {@code MPI_Waitall} per batch,
 * {@code MPI_Alltoall} for dense meta-data, a nonblocking consensus ({@code MPI_Issend},
 * {@code MPI_Iprobe}, {@code MPI_Ibarrier}) for sparse meta-data. With the section's sync
 * deadline on ({@link SyncDeadline}), or polling asked for, every wait polls instead ({@code MPI_Testall},
 * {@code MPI_Ialltoall}). The round is {@code MPI_Allreduce} ({@code MPI_Iallreduce} polled under
 * the deadline), a cause a length and the bytes with {@code MPI_Send}. Channels are tags
 * ({@link MpiTags}). Allocates only when a batch outgrows its request array.
 */
final class MpiTransport implements Transport {
    /**
     * A stream sent before the round goes in a first message of this size: small enough for an
     * eager send, so that it arrives while the round runs (Open MPI's shared-memory eager limit
     * is 4 KiB including its own match header of a few dozen bytes).
     */
    static final long EAGER_BYTES = 4096 - 64;
    private final Mpi mpi;
    private final long comm;
    private final RequestArray early, rest, consensus, barrier;
    private final int me, ranks;
    /** How every wait completes: blocking in MPI, or polled under the section's sync deadline. */
    private final SyncDeadline deadline;
    /** @return the deadline of this section's waits (also of the start of a section made from it) */
    SyncDeadline deadline() { return deadline; }

    /** One message of the sparse way: the value (one long), sent from and received into native memory. */
    private final NativeBuffer notes = new NativeBuffer(), note = new NativeBuffer();
    private static final int TAG_NONZERO = MpiTags.NONZERO;

    /**
     * @param comm              the section's communicator (the caller frees it after {@link #close})
     * @param syncTimeoutMillis the deadline on every wait of a sync, 0 for none
     * @param polls             whether every wait polls even without a deadline ({@link MpiSettings#polls})
     * @param around            the deadline of the communicator {@code comm} was made from, or null ({@link SyncDeadline})
     */
    MpiTransport(Mpi mpi, long comm, int syncTimeoutMillis, boolean polls, SyncDeadline around) {
        this.mpi = mpi;
        this.comm = comm;
        this.ranks = mpi.size(comm);
        this.deadline = new SyncDeadline(mpi, comm, mpi.rank(comm), ranks, syncTimeoutMillis, polls, around);
        this.early = new RequestArray(mpi, ranks);
        this.rest = new RequestArray(mpi, 4 * ranks);
        this.consensus = new RequestArray(mpi, 8);
        this.barrier = new RequestArray(mpi, 1);
        this.me = mpi.rank(comm);
        notes.atLeast(8L * ranks);
        note.atLeast(8);
    }

    /**
     * The nonblocking consensus of Hoefler, Siebert and Lumsdaine ("Scalable communication
     * protocols for dynamic sparse data exchange", PPoPP 2010): synchronous sends to the ranks
     * this one has something for; while polling for such messages, once all of this rank's sends
     * were matched it enters a nonblocking barrier; when the barrier completes, every message of
     * the round has been received (a synchronous send completes only when matched).
     */
    @Override
    public void exchangeNonzero(long[] out, long[] in) {
        MemorySegment values = notes.atLeast(0), one = note.atLeast(0);
        for (int r = 0; r < out.length; r++) {
            if (r == me || out[r] == 0) continue;
            values.setAtIndex(ValueLayout.JAVA_LONG, r, out[r]);
            consensus.issend(values, 8L * r, 8, r, TAG_NONZERO, comm);
        }
        for (int r = 0; r < in.length; r++) if (r != me) in[r] = 0;
        boolean inBarrier = false;
        while (true) {
            boolean progressed = false;
            for (int from = mpi.iprobeAnySource(TAG_NONZERO, comm); from >= 0; from = mpi.iprobeAnySource(TAG_NONZERO, comm)) {
                mpi.recvBytes(one.address(), 8, from, TAG_NONZERO, comm);
                in[from] = one.get(ValueLayout.JAVA_LONG, 0);
                progressed = true;
            }
            if (!inBarrier) {
                if (consensus.testAll()) {
                    barrier.ibarrier(comm);
                    inBarrier = true;
                    progressed = true;
                }
            } else if (barrier.testAll()) {
                return;
            }
            // The others may need this core to make the progress this loop waits for (more ranks than cores).
            if (progressed) continue;
            if (deadline.on()) deadline.idle();
            else Thread.yield();
        }
    }

    /**
     * Counts the exchange's messages (the protocol does) and its collectives as operations, but
     * not their messages: MPI_Allreduce, MPI_Alltoall and MPI_Ibarrier choose their algorithm
     * inside libmpi and do not say what they send, so those counts read -1, not a guess. No
     * connections either (-1): libmpi makes and keeps its own (shared memory has none).
     */
    @Override public org.lpf4j.spi.kit.WireCounts counts() { return new org.lpf4j.spi.kit.WireCounts(false, null); }

    @Override public int rank() { return me; }

    @Override public int ranks() { return ranks; }

    @Override public long eagerBytes() { return EAGER_BYTES; }

    @Override public void beginRound(long superstep) { deadline.begin(superstep); }

    @Override
    public void allreduce(MemorySegment buffer, int words, Reduction op) {
        deadline.allreduceLongs(buffer.address(), buffer.address() + 8L * words, words,
                op == Reduction.OR ? mpi.opBor() : mpi.opMax());
    }

    @Override
    public boolean anyThreadMayCall() { return mpi.queryThread() >= Mpi.THREAD_SERIALIZED; }

    /** A length, then the bytes, with blocking sends: a cause at the end of a failed section. */
    @Override
    public void sendMessage(byte[] bytes, int rank) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment len = a.allocate(8);
            len.set(ValueLayout.JAVA_LONG, 0, bytes.length);
            mpi.sendBytes(len, 8, rank, MpiTags.MESSAGE, comm);
            if (bytes.length > 0) mpi.sendBytes(a.allocateFrom(ValueLayout.JAVA_BYTE, bytes), bytes.length, rank, MpiTags.MESSAGE, comm);
        }
    }

    @Override
    public byte[] receiveMessage(int rank) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment len = a.allocate(8);
            mpi.recvBytes(len, 8, rank, MpiTags.MESSAGE, comm);
            int n = Math.toIntExact(len.get(ValueLayout.JAVA_LONG, 0));
            if (n == 0) return new byte[0];
            MemorySegment buf = a.allocate(n);
            mpi.recvBytes(buf, n, rank, MpiTags.MESSAGE, comm);
            return buf.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private RequestArray batch(int batch) { return batch == EARLY ? early : rest; }

    @Override
    public void alltoallLongs(MemorySegment buffer, long inAt) {
        deadline.alltoallBytes(buffer.address(), buffer.address() + inAt, 8);
    }

    @Override
    public void receive(int batch, Channel channel, MemorySegment into, long offset, long bytes, int rank) {
        batch(batch).irecv(into, offset, bytes, rank, MpiTags.of(channel), comm);
    }

    /** For tests: the next large payload this thread sends fails, as a buffer the JVM refuses. */
    static volatile Thread largeSendFailsForTest;

    @Override
    public void send(int batch, Channel channel, MemorySegment from, long offset, long bytes, int rank) {
        if (channel == Channel.LARGE && largeSendFailsForTest != null && largeSendFailsForTest == Thread.currentThread()) {
            largeSendFailsForTest = null;
            throw new OutOfMemoryError("Cannot reserve " + bytes + " bytes of direct buffer memory (injected for a test)");
        }
        batch(batch).isend(from, offset, bytes, rank, MpiTags.of(channel), comm);
    }

    @Override
    public void complete(int batch) { deadline.complete(batch(batch)); }

    /**
     * With the sync deadline on, a notice to every other process, whose waits fail at once with
     * {@code why}. Without it they wait in blocking MPI calls that nothing can end: the job is
     * aborted ({@code MPI_Abort}) after {@code why} is printed, rather than left hanging. A section
     * of one process has nobody to tell: nothing happens, and its error reaches the caller.
     */
    @Override
    public void leave(String why) {
        if (ranks == 1) return;
        if (deadline.leave(why)) return;
        System.err.println("lpf4j mpi: rank " + me + " of a section of " + ranks + ": " + why + "; without "
                + MpiParameters.SYNC_TIMEOUT.key() + " the other processes cannot be told, so the job is aborted (MPI_Abort)");
        System.err.flush();
        mpi.abort(comm, 1);
    }

    @Override
    public int pending() { return early.count() + rest.count(); }

    @Override
    public void close() {
        deadline.close();
        early.close();
        rest.close();
        consensus.close();
        barrier.close();
        notes.close();
        note.close();
    }
}
