package org.lpf4j.engine.mpi;

import org.lpf4j.superstep.Transport;

/**
 * Every MPI tag the engine uses, in one place. A section's messages travel on its own
 * communicator, so tags only keep apart the kinds of message within a section; the control
 * communicator of the runtime has its own.
 */
final class MpiTags {
    private MpiTags() {}

    /** The protocol's channels ({@link Transport.Channel}). */
    static final int PACKED = 11, LARGE = 12, REPLY = 13, PACKED_REST = 16;
    /** The sparse way's one-long messages ({@link MpiTransport#exchangeNonzero}). */
    static final int NONZERO = 14;
    /** The sync deadline's messages about processes that did not arrive ({@link SyncDeadline}). */
    static final int ALIVE = 15;
    /** The reason of a process that left a sync midway, after its notice on {@link #ALIVE} ({@link SyncDeadline#leave}). */
    static final int LEFT_WHY = 17;
    /** Small length-prefixed messages: the causes of a failed section ({@link Transport#sendMessage}). */
    static final int MESSAGE = 21;
    /** The runtime's commands to the ranks that wait for work, on its control communicator ({@link MpiRuntime}). */
    static final int COMMAND = 31;

    /** @return the tag of a protocol channel */
    static int of(Transport.Channel channel) {
        return switch (channel) {
            case PACKED -> PACKED;
            case PACKED_REST -> PACKED_REST;
            case LARGE -> LARGE;
            case REPLY -> REPLY;
        };
    }
}
