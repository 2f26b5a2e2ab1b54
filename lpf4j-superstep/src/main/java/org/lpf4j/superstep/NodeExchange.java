package org.lpf4j.superstep;

import org.lpf4j.Context;
import org.lpf4j.spi.kit.RequestList;
import org.lpf4j.spi.kit.SlotRegister;

/**
 * A multi-JVM section as an engine layered on it sees it: a sync that moves the requests of
 * all the rank's local processes ({@link NodeRequests}), then the writes each local process makes
 * into its own memory, on its own thread. Obtained with {@link #of(Context)} from the context the
 * multi-JVM engine passed to the layered engine's node-level SPMD function.
 *
 * <p>Order of a superstep: one thread of the rank calls {@link #sync} while every local process
 * waits (on a barrier of the layered engine); afterwards each local process calls
 * {@link #applyPuts} then {@link #applyReplies} for itself. Puts from other ranks land in a fixed
 * order (by source rank, then in the order the source queued them); large ones may land during
 * {@link #sync} itself, straight into the destination (a serialisation before anything applied
 * later). Gets read the owner's memory during {@link #sync}, before anything is written.
 *
 * <p>Not thread-safe: calls for one superstep must be ordered by the layered engine's barriers.
 */
public interface NodeExchange {
    /**
     * The section's sync, moving {@code requests}: one allreduce (the round) when no rank has
     * requests; otherwise that allreduce (in small sections the streams go out before it and it
     * carries who sends to whom, else an alltoall or a consensus follows it) and the data.
     * Throws what {@code sync()} throws: {@link org.lpf4j.FatalException} when another rank ended
     * the section; a rule a request broke at its destination (after every transfer completed).
     *
     * @return whether any rank had requests (then every local process must apply)
     */
    boolean sync(NodeRequests requests);

    /**
     * Writes the puts from other ranks addressed to local process {@code local}, in the fixed
     * order. A put to a process of this rank itself (which the layered engines keep out of
     * {@code requests}: they move those themselves) would be read from its source here, on this
     * thread, not during {@link #sync}.
     *
     * @throws IllegalStateException after writing the others, if such a put's source memory was freed during the sync
     */
    void applyPuts(int local, SlotRegister register);

    /** Copies the replies to the gets in {@code gets} (one local process's list, as {@link #sync} saw it) to their destinations. */
    void applyReplies(RequestList gets, NodeRequests requests);

    /**
     * @return after a {@link #sync} threw because processes did not reach it within
     *         the engine's sync deadline: the reason, naming them by pid (the ranks of the
     *         section); otherwise null
     */
    String deadlineFailure();

    /** @return whether the transport lets any thread of the rank call {@link #sync} (one at a time), not only the first */
    boolean anyThreadMaySync();

    /**
     * @param nodes the context of a section of a multi-JVM engine built on this protocol
     * @return that section's exchange
     * @throws IllegalArgumentException if {@code nodes} is not such a context
     */
    static NodeExchange of(Context nodes) {
        if (nodes instanceof NodeExchange e) return e;
        throw new IllegalArgumentException("NodeExchange.of(" + nodes + "): not a context of a multi-JVM section (an engine built on org.lpf4j.superstep)");
    }
}
