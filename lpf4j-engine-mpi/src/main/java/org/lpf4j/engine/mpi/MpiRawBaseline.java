package org.lpf4j.engine.mpi;

import org.lpf4j.Context;
import org.lpf4j.spi.RawBaseline;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * MPI through this engine's binding on a section's own communicator, for the raw rows of
 * {@code lpf bench --engine mpi}: {@code MPI_Barrier}, {@code MPI_Bcast} and
 * {@code MPI_Allreduce(BOR)} of one long, {@code MPI_Put} + {@code MPI_Win_fence} on a window made
 * with {@code MPI_Win_create}, and {@code MPI_Irecv}/{@code MPI_Isend} + {@code MPI_Waitall}. One
 * MPI call per operation, no allocation after {@link #open}.
 */
final class MpiRawBaseline implements RawBaseline {
    @Override
    public String description() {
        MpiRuntime rt = MpiRuntime.get();
        return rt.mpi.abiName() + " (" + rt.libraryVersion.strip() + ")";
    }

    @Override
    public Names names() {
        return new Names("MPI_Barrier", "MPI_Put + MPI_Win_fence", "MPI_Isend/MPI_Irecv + MPI_Waitall");
    }

    @Override
    public Section open(Context ctx) {
        if (!(ctx instanceof MpiContext mc)) {
            throw new IllegalArgumentException("MPI raw transport: needs a context of the MPI engine itself, got "
                    + (ctx == null ? "null" : ctx.getClass().getName()) + " (the debug layer wraps contexts: run without it)");
        }
        return new MpiSection(mc.mpi(), mc.comm());
    }

    /** One section's communicator; buffers for the control words and two requests. */
    private static final class MpiSection implements Section {
        private static final int TAG = 7;
        private final Mpi mpi;
        private final long comm;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment word, requests;

        MpiSection(Mpi mpi, long comm) {
            this.mpi = mpi;
            this.comm = comm;
            this.word = arena.allocate(16);
            this.requests = mpi.requests(arena, 2);
        }

        @Override public void barrier() { mpi.barrier(comm); }

        @Override
        public long broadcast(long value) {
            word.set(ValueLayout.JAVA_LONG, 0, value);
            mpi.bcastBytes(word, 8, 0, comm);
            return word.get(ValueLayout.JAVA_LONG, 0);
        }

        @Override
        public boolean anyOf(boolean mine) {
            word.set(ValueLayout.JAVA_LONG, 0, mine ? 1 : 0);
            mpi.allreduceLongs(word.address(), word.address() + 8, 1, mpi.opBor(), comm);
            return word.get(ValueLayout.JAVA_LONG, 8) != 0;
        }

        @Override
        public Window window(MemorySegment area) {
            long win = mpi.winCreate(area, comm);
            mpi.winFence(0, win);
            return new Window() {
                @Override
                public void put(MemorySegment source, long bytes, int target, long offset) {
                    mpi.putBytes(source, Math.toIntExact(bytes), target, offset, win);
                }

                @Override public void complete() { mpi.winFence(0, win); }

                @Override public void close() { mpi.winFree(win); }
            };
        }

        @Override
        public void sendReceive(MemorySegment source, int to, MemorySegment target, int from, long bytes) {
            int n = Math.toIntExact(bytes);
            mpi.irecvBytes(target, n, from, TAG, comm, requests, 0);
            mpi.isendBytes(source, n, to, TAG, comm, requests, 1);
            mpi.waitall(2, requests);
        }

        @Override public void close() { arena.close(); }
    }
}
