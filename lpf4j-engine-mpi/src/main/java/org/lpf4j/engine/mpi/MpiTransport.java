package org.lpf4j.engine.mpi;

import java.lang.foreign.MemorySegment;

/**
 * The {@link Transport} of MPI point-to-point calls on a section's communicator:
 * {@code MPI_Isend}/{@code MPI_Irecv} (split at 1 GiB), {@code MPI_Waitall} per batch,
 * {@code MPI_Alltoall} for the meta-data. Allocates only when a batch outgrows its request array.
 */
final class MpiTransport implements Transport {
    private final Mpi mpi;
    private final long comm;
    private final RequestArray early, rest;

    MpiTransport(Mpi mpi, long comm, int ranks) {
        this.mpi = mpi;
        this.comm = comm;
        this.early = new RequestArray(mpi, ranks);
        this.rest = new RequestArray(mpi, 4 * ranks);
    }

    private RequestArray batch(int batch) { return batch == EARLY ? early : rest; }

    @Override
    public void alltoallLongs(MemorySegment out, MemorySegment in) { mpi.alltoallBytes(out.address(), in.address(), 8, comm); }

    @Override
    public void receive(int batch, MemorySegment into, long offset, long bytes, int rank, int tag) {
        batch(batch).irecv(into, offset, bytes, rank, tag, comm);
    }

    @Override
    public void send(int batch, MemorySegment from, long offset, long bytes, int rank, int tag) {
        batch(batch).isend(from, offset, bytes, rank, tag, comm);
    }

    @Override
    public void complete(int batch) { batch(batch).waitAll(); }

    @Override
    public void close() {
        early.close();
        rest.close();
    }
}
