package org.lpf4j.coll;

/**
 * The algorithm variants of the collectives, after the cost table of the LPF collectives
 * specification. {@link #AUTO} picks per call from the g and l measured by
 * {@link org.lpf4j.Context#probe() probe}; the others force a variant
 * ({@link Collectives#algorithm(Algorithm)}), which is how tests cover every variant. Gather,
 * scatter, allgather, alltoall and allgatherv have a single one-superstep algorithm, alltoallv a
 * single two-superstep one (offsets, then the parts); they ignore the choice.
 *
 * <p>Costs below are for P members, N bytes per process (broadcast: the vector; reductions:
 * {@code num·size}), G ≈ √P groups of c ≈ √P members.
 */
public enum Algorithm {
    /** Choose the cheapest variant by the BSP cost model; always {@link #DIRECT} for a strict subset. */
    AUTO,
    /**
     * One superstep, completed by the caller's next sync. Broadcast: every member reads the
     * root's vector, {@code (P-1)N·g + l}. Reductions: every contribution goes to every
     * receiver as a combining put ("allgather-based"), {@code (P-1)N·g + l} plus applying the
     * operator to (P-1)N bytes at the receiver.
     */
    DIRECT,
    /**
     * Two supersteps (one internal sync). Broadcast: scatter the vector in P pieces, then
     * allgather them, {@code 2((P-1)/P·N·g + l)}. Reductions: transpose-reduce-allgather — each
     * member combines one piece of {@code num/P} elements from everyone, then sends it to the
     * root (or to all), {@code 2(P-1)/P·N·g + 2l}. With fewer elements than members the pieces
     * are uneven (one element: reduce at one member, then broadcast it).
     */
    TWO_PHASE,
    /**
     * Two supersteps (one internal sync) over a two-level tree of about √P groups of √P, or of
     * the machine's nodes when {@link org.lpf4j.Machine#levels()} reports them (then only the
     * upper level crosses nodes; the root leads its own node).
     * Broadcast: root to group leaders, leaders to their groups, {@code 2(√P·N·g + l)}.
     * Reductions: combine within groups, then across groups (to the root, or member i of each
     * group exchanging with member i of the others), {@code 2(√P·N·g + l)}.
     */
    TREE
}
