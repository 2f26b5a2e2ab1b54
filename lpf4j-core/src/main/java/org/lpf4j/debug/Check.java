package org.lpf4j.debug;

import java.util.Locale;

/** The programming errors the debug layer detects; each {@link LpfProgrammingError} names one. */
public enum Check {
    /** A pid out of range, a negative offset or size, a null argument. */
    BAD_ARGUMENT("invalid argument"),
    /** A slot that is unknown here, deregistered, or belongs to another context. */
    BAD_SLOT("slot not registered"),
    /** A global slot used before the sync that activates its registration. */
    INACTIVE_SLOT("slot used before the sync that activates its registration"),
    /** A local slot named as the remote source or destination. */
    LOCAL_SLOT_AS_REMOTE("local slot used as a remote source or destination"),
    /** offset + size past the area registered locally or, found at sync, at the remote process. */
    OUT_OF_BOUNDS("area past the registered memory"),
    /** More requests than the message queue holds, at the origin or at the target. */
    QUEUE_CAPACITY("message queue capacity exceeded"),
    /** More registrations than the memory register holds. */
    REGISTER_CAPACITY("memory register capacity exceeded"),
    /** Global register/deregister calls in a different order or number on different processes. */
    COLLECTIVE_MISMATCH("global register/deregister calls differ between processes"),
    /** A put's source written, or a get's destination read, in the same superstep. */
    READ_WRITE_CONFLICT("read/write conflict in one superstep"),
    /** Deregistering a slot that a request of the current superstep names. */
    DEREGISTER_PENDING("deregistering a slot with pending requests"),
    /** Slots still registered when the SPMD function returns. */
    SLOTS_LEFT_REGISTERED("slots still registered when the SPMD function returns"),
    /** The engine refused a call the debug layer let through. */
    ENGINE_REJECTED("the engine rejected a call"),
    /** A sync that not every process makes (one returned from its SPMD function instead). */
    UNEQUAL_SYNCS("a sync that not every process makes");

    private final String description;

    Check(String description) { this.description = description; }

    /** @return what the check finds, in words */
    public String description() { return description; }

    /** @return the tag used in messages, e.g. {@code "queue-capacity"} */
    public String tag() { return name().toLowerCase(Locale.ROOT).replace('_', '-'); }
}
