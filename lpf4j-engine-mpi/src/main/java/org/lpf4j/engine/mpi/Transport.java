package org.lpf4j.engine.mpi;

import java.lang.foreign.MemorySegment;

/**
 * What carries the {@link Exchange}'s bytes between the ranks of a section: nonblocking
 * point-to-point transfers in two batches (the packed streams first, everything else after) and
 * an all-to-all of one long per pair for the dense meta-data way. MPI today ({@link MpiTransport});
 * another carrier (sockets between JVMs no MPI launcher started) would implement the same calls,
 * and the exchange would not change.
 *
 * <p>Messages between one pair with one tag match in the order they were posted, as MPI's do.
 * Buffers must be native memory and stay valid until their batch completes.
 */
interface Transport extends AutoCloseable {
    /** The batch of the receipts of the packed streams, completed before they are read. */
    int EARLY = 0;
    /** The batch of everything else (large puts, replies, the sends of the packed streams), completed at the end of a sync. */
    int REST = 1;

    /**
     * Each rank sends the r-th long of {@code buffer} to rank r and receives rank r's into the r-th
     * long from {@code inAt}; collective. One buffer, so that no slice is made per sync.
     */
    void alltoallLongs(MemorySegment buffer, long inAt);

    /**
     * The sparse way to the same result as {@link #alltoallLongs} for the entries that are not 0:
     * each rank tells only the ranks it has a nonzero {@code out[r]} for, and learns who has one
     * for it; collective. Cost per rank: one small message per such rank and a barrier's
     * log p messages, instead of an all-to-all over every pair.
     *
     * @param out what this rank has for each rank (its own entry is ignored)
     * @param in  filled with what each rank has for this one (0 where nothing came; its own entry untouched)
     */
    void exchangeNonzero(long[] out, long[] in);

    /** Posts the receipt of {@code bytes} at {@code offset} of {@code into} from {@code rank}. */
    void receive(int batch, MemorySegment into, long offset, long bytes, int rank, int tag);

    /** Posts the sending of {@code bytes} at {@code offset} of {@code from} to {@code rank}. */
    void send(int batch, MemorySegment from, long offset, long bytes, int rank, int tag);

    /** Waits until every transfer of {@code batch} posted since its last completion has completed. */
    void complete(int batch);

    /** @return the transfers of both batches posted and not completed yet */
    int pending();

    @Override
    void close();
}
