package org.lpf4j.superstep;

import org.lpf4j.spi.kit.WireCounts;

import java.lang.foreign.MemorySegment;

/**
 * What carries the superstep protocol between the JVMs of a section: the transport SPI. The
 * protocol ({@link SuperstepContext}, {@link Exchange}) is written once over these calls; a
 * transport (MPI, TCP sockets, ...) only moves bytes and runs the few collectives a sync needs.
 * Ranks are the section's processes (or, under a layered engine, its JVMs), numbered from 0.
 *
 * <p><b>Point-to-point.</b> Nonblocking transfers posted in two batches ({@link #EARLY}: the
 * receipts of streams sent before the round; {@link #REST}: everything else) and completed per
 * batch. Messages are kept apart by {@link Channel}: between one pair on one channel they match
 * in the order they were posted; how a transport keeps channels apart (MPI tags, frames on a
 * socket) is its own business. Buffers must be native memory and stay valid until their batch
 * completes. A message the protocol sends before the round is at most {@link #eagerBytes()} long,
 * so that the transport can deliver it without the receiver's help.
 *
 * <p><b>Collectives.</b> {@link #allreduce} (the round), {@link #alltoallLongs} and
 * {@link #exchangeNonzero} (the counts of a superstep), and small byte messages
 * ({@link #sendMessage}) that carry a failed process's exception to pid 0.
 *
 * <p><b>Failure.</b> A transport that bounds its waits (a sync deadline) throws {@link Stopped}
 * from any call when processes did not arrive in time: the section cannot go on, and its
 * collectives will never complete. Other failures are the transport's own exceptions.
 *
 * <p>Calls come from one thread at a time (the section's syncing thread). Implementations should
 * allocate nothing per call once their buffers have grown.
 */
public interface Transport extends AutoCloseable {
    /** The batch of the receipts of the streams sent before the round, completed before they are read. */
    int EARLY = 0;
    /** The batch of everything else (large puts, replies, the sends of the streams), completed at the end of a sync. */
    int REST = 1;

    /** What a point-to-point message is, which the transport keeps apart from the others. */
    enum Channel {
        /** A packed stream of request headers and small payloads (or its first chunk, when sent before the round). */
        PACKED,
        /** The rest of a packed stream sent before the round, after its first {@link #eagerBytes()} bytes. */
        PACKED_REST,
        /** The payload of one large put. */
        LARGE,
        /** A stream of replies to gets. */
        REPLY
    }

    /** How {@link #allreduce} combines the words of the ranks. */
    enum Reduction { OR, MAX }

    /** @return this rank */
    int rank();

    /** @return the ranks of the section */
    int ranks();

    /** @return the longest message the protocol may send before the round (its first chunk), in bytes */
    long eagerBytes();

    /**
     * Called at the start of every round with the section's superstep count, so that a transport
     * that bounds its waits can say where processes stopped. Costs nothing otherwise.
     */
    default void beginRound(long superstep) {}

    /**
     * Each rank contributes {@code words} longs at offset 0 of {@code buffer} and receives their
     * combination at offset {@code 8 * words}; collective.
     */
    void allreduce(MemorySegment buffer, int words, Reduction op);

    /**
     * Each rank sends the r-th long of {@code buffer} to rank r and receives rank r's into the r-th
     * long from {@code inAt}; collective. One buffer, so that no slice is made per sync.
     */
    void alltoallLongs(MemorySegment buffer, long inAt);

    /**
     * The sparse way to the same result as {@link #alltoallLongs} for the entries that are not 0:
     * each rank tells only the ranks it has a nonzero {@code out[r]} for, and learns who has one
     * for it; collective.
     *
     * @param out what this rank has for each rank (its own entry is ignored)
     * @param in  filled with what each rank has for this one (0 where nothing came; its own entry untouched)
     */
    void exchangeNonzero(long[] out, long[] in);

    /** Posts the receipt of {@code bytes} at {@code offset} of {@code into} from {@code rank} on {@code channel}. */
    void receive(int batch, Channel channel, MemorySegment into, long offset, long bytes, int rank);

    /** Posts the sending of {@code bytes} at {@code offset} of {@code from} to {@code rank} on {@code channel}. */
    void send(int batch, Channel channel, MemorySegment from, long offset, long bytes, int rank);

    /** Waits until every transfer of {@code batch} posted since its last completion has completed. */
    void complete(int batch);

    /** @return the transfers of both batches posted and not completed yet */
    int pending();

    /** Sends {@code bytes} to {@code rank} and returns when they are on their way (blocking; small messages, at a section's end). */
    void sendMessage(byte[] bytes, int rank);

    /** @return the next message {@link #sendMessage} sent this rank from {@code rank} (blocking) */
    byte[] receiveMessage(int rank);

    /**
     * The counts of what this rank sends: the transport counts its collectives' messages
     * ({@link WireCounts#meta}) if it can see them, and states its connections; the protocol
     * counts the rest. Called once, when the section's context is made; the default counts no
     * collective message and no connection.
     *
     * @return the counts the transport increments, which the protocol increments too
     */
    default WireCounts counts() { return new WireCounts(false, null); }

    /**
     * This rank leaves a superstep midway, for an error of its own (a buffer it could not
     * allocate, say): its transfers of the superstep may be half done and the section's protocol
     * cannot go on. The transport ends every other rank's wait on this one as this rank's death
     * would, naming {@code why}, so that none waits for it forever; the section is not used
     * again. The default does nothing: the other ranks' waits end by their deadline, if they have one.
     *
     * @param why what this rank threw, for the others' failures
     */
    default void leave(String why) {}

    /** @return whether any thread may make the calls (one at a time), not only the one that started the section */
    default boolean anyThreadMayCall() { return true; }

    /** Releases what the transport holds for this section (not called while transfers are pending). */
    @Override
    void close();

    /**
     * Processes did not reach a collective of the section in time: the section has failed and no
     * collective of it can complete any more. The message names them.
     */
    class Stopped extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** @param message which processes did not arrive, and where */
        public Stopped(String message) { super(message); }
    }
}
