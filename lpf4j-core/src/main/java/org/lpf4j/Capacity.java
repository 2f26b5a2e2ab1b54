package org.lpf4j;

/**
 * What a process needs reserved in its {@link Context}: memory-register slots and message-queue
 * entries per superstep, the values for {@link Context#resizeMemoryRegister} and
 * {@link Context#resizeMessageQueue}. lpf4j's engines count, against the queue, the requests a
 * process queues in a superstep; the core specification counts a request once at its origin and
 * once at its target, and a library may declare that larger number so that it holds on any LPF
 * engine (each library's {@code needs} says which it declares). Capacities add up, so a program
 * states its own needs and adds those each library declares before it is initialised, then
 * reserves the total in one sync:
 *
 * <pre>{@code
 * Capacity.of(mySlots, myEntries)
 *         .plus(Collectives.needs(p, maxCalls, maxElemSize, maxByteSize))
 *         .plus(Bsmp.needs(p, bufferSize, tagSize, maxMessages))
 *         .plus(Checkpoints.needs(p))
 *         .reserve(ctx);
 * }</pre>
 *
 * <p>The values are totals, not increments: {@link #reserve} sets the register and the queue to
 * exactly this, so the whole program's needs go into one value. Immutable; every method is O(1).
 *
 * @param slots   memory-register entries (registrations held at once), ≥ 0
 * @param entries message-queue entries per superstep, ≥ 0
 */
public record Capacity(long slots, long entries) {
    /** Nothing: no slot, no entry. */
    public static final Capacity NONE = new Capacity(0, 0);

    /**
     * @throws IllegalArgumentException if a value is negative
     */
    public Capacity {
        if (slots < 0 || entries < 0) {
            throw new IllegalArgumentException("Capacity(slots=" + slots + ", entries=" + entries
                    + "): must not be negative");
        }
    }

    /**
     * @param slots   memory-register entries, ≥ 0
     * @param entries message-queue entries per superstep, ≥ 0
     * @return the capacity
     * @throws IllegalArgumentException if a value is negative
     */
    public static Capacity of(long slots, long entries) { return new Capacity(slots, entries); }

    /**
     * @param other another need (of a library, or of another part of the program)
     * @return the sum of both
     * @throws ArithmeticException if a sum overflows a long
     */
    public Capacity plus(Capacity other) {
        return new Capacity(Math.addExact(slots, other.slots), Math.addExact(entries, other.entries));
    }

    /**
     * Reserves exactly this on {@code ctx} and ends the superstep:
     * {@code ctx.resizeMemoryRegister(slots)}, {@code ctx.resizeMessageQueue(entries)},
     * {@code ctx.sync()}. Collective (it syncs); every process should reserve the same value, since
     * all may only assume the smallest. Cost: the two resizes (Θ(slots + entries) when they grow)
     * and one sync.
     *
     * @param ctx this process's context
     * @throws LpfOutOfMemoryException if a resize cannot get its memory; no sync was made (when the
     *                                 queue's resize fails, the register's, already made, takes
     *                                 effect at the next sync)
     */
    public void reserve(Context ctx) {
        ctx.resizeMemoryRegister(slots);
        ctx.resizeMessageQueue(entries);
        ctx.sync();
    }
}
