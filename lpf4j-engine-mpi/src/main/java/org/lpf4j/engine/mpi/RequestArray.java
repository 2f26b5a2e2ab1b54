package org.lpf4j.engine.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A growable native array of {@code MPI_Request} handles for one wait: {@link #next()} gives the
 * index for the next nonblocking call ({@link #isend}/{@link #irecv} post transfers of any length),
 * {@link #waitAll()} completes them all. Growing copies the
 * handles (they are values, MPI keeps no pointer to the array).
 */
final class RequestArray implements AutoCloseable {
    private final Mpi mpi;
    private final long handleSize;
    private Arena arena = Arena.ofShared();
    private MemorySegment segment;
    private int capacity, count;

    /** @return the requests posted since the last completion */
    int count() { return count; }

    public RequestArray(Mpi mpi, int capacity) {
        this.mpi = mpi;
        this.handleSize = mpi.abi.handleLayout.byteSize();
        this.capacity = Math.max(4, capacity);
        this.segment = mpi.requests(arena, this.capacity);
    }

    /** @return the address where the next request handle goes, growing the array if needed (valid until the next call) */
    public long next() {
        if (count == capacity) {
            Arena grownArena = Arena.ofShared();
            MemorySegment grown = mpi.requests(grownArena, capacity * 2);
            MemorySegment.copy(segment, 0, grown, 0, count * handleSize);
            arena.close();
            arena = grownArena;
            segment = grown;
            capacity *= 2;
        }
        return segment.address() + handleSize * count++;
    }

    /** The most bytes one MPI message carries (counts are {@code int}); longer transfers are split. */
    public static final long MAX_MESSAGE = 1L << 30;

    /**
     * Posts {@code MPI_Isend}s of {@code size} bytes at {@code offset} of {@code buf}, in messages of
     * at most {@link #MAX_MESSAGE} bytes (the receiver posts the same split with {@link #irecv}).
     */
    public void isend(MemorySegment buf, long offset, long size, int dest, int tag, long comm) {
        do {
            int n = (int) Math.min(size, MAX_MESSAGE);
            mpi.isendBytes(buf.address() + offset, n, dest, tag, comm, next());
            offset += n;
            size -= n;
        } while (size > 0);
    }

    /** Posts the {@code MPI_Irecv}s matching {@link #isend} of the same size. */
    public void irecv(MemorySegment buf, long offset, long size, int source, int tag, long comm) {
        do {
            int n = (int) Math.min(size, MAX_MESSAGE);
            mpi.irecvBytes(buf.address() + offset, n, source, tag, comm, next());
            offset += n;
            size -= n;
        } while (size > 0);
    }

    /** Posts one {@code MPI_Issend} of at most {@link #MAX_MESSAGE} bytes (completes once the receiver matched it). */
    void issend(MemorySegment buf, long offset, int size, int dest, int tag, long comm) {
        mpi.issendBytes(buf.address() + offset, size, dest, tag, comm, next());
    }

    /** Posts an {@code MPI_Ibarrier}. */
    void ibarrier(long comm) {
        mpi.ibarrier(comm, next());
    }

    /** @return whether every request posted since the last completion has completed (then they are forgotten) */
    boolean testAll() {
        if (!mpi.testall(count, segment.address())) return false;
        count = 0;
        return true;
    }

    /** Waits for every request posted since the last wait. */
    public void waitAll() {
        int n = count;
        count = 0;
        mpi.waitall(n, segment.address());
    }

    @Override
    public void close() { arena.close(); }
}
