package org.lpf4j.spi;

import java.util.List;
import java.util.Map;

/**
 * A module of the {@code coll} framework: chooses which algorithm a collective operation runs.
 * The collectives library computes each candidate algorithm's predicted time from the cost table
 * of the LPF collectives specification and the machine's measured g and l ({@code probe}), and
 * asks the selected module to choose; a module may follow the predictions or the user's forced
 * choice, per operation.
 */
public interface CollModule extends Component {
    /** The word for "no forced algorithm: choose by predicted cost". */
    String AUTO = "auto";

    /**
     * The algorithm names a coll module and the collectives library agree on, after the cost
     * table of the LPF collectives specification: {@code direct} (one superstep),
     * {@code two_phase} (scatter/allgather, transpose-reduce-allgather), {@code tree} (two-level
     * tree). The library's algorithm enum maps to these by lower-casing its constant names.
     */
    List<String> ALGORITHMS = List.of("direct", "two_phase", "tree");

    /**
     * The operations of the LPF collectives specification, and the variable-size
     * {@code allgatherv} and {@code alltoallv} (as MPI has them): the one list the collectives
     * library and every coll module use.
     */
    List<String> OPERATIONS = List.of("broadcast", "gather", "scatter", "allgather", "alltoall",
            "reduce", "allreduce", "combine", "allcombine", "allgatherv", "alltoallv");

    /** The operations that have several algorithms ({@link #ALGORITHMS}), in this order; the others only {@code direct}. */
    List<String> WITH_VARIANTS = List.of("broadcast", "reduce", "allreduce", "combine", "allcombine");

    @Override default Framework framework() { return Framework.COLL; }

    /**
     * The algorithm the user forced for an operation, read once when a collectives object is
     * created (so the operations themselves stay cheap). O(1) plus one parameter resolution.
     *
     * @param operation an operation of the LPF collectives specification, e.g. {@code "allreduce"}
     * @return one of {@link #ALGORITHMS}, or {@link #AUTO} to let the library choose by cost
     *         (the default for modules that do not force anything)
     * @throws IllegalArgumentException if the user's setting is not a valid algorithm name for
     *                                  {@code operation} (naming the key, the value, its source
     *                                  and the valid names)
     */
    default String forced(String operation) { return AUTO; }

    /**
     * Chooses an algorithm. The collectives library asks the selected module whenever an
     * operation with variants is not forced, and caches the answer per collectives object,
     * operation and size. It must be a pure function of its arguments (and of settings read
     * before the call): every process must choose the same. Cheap (no allocation beyond the answer).
     *
     * @param operation        e.g. {@code "broadcast"}
     * @param predictedSeconds each candidate algorithm's predicted time (iteration order is the
     *                         library's order of preference on ties)
     * @return one of the candidates' names
     * @throws IllegalArgumentException if the user forced an algorithm that is not a candidate
     *                                  (naming the candidates)
     */
    String choose(String operation, Map<String, Double> predictedSeconds);
}
