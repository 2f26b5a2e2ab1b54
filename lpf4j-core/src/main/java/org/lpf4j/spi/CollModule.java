package org.lpf4j.spi;

import java.util.Map;

/**
 * A module of the {@code coll} framework: chooses which algorithm a collective operation runs.
 * The collectives library computes each candidate algorithm's predicted time from the cost table
 * of the LPF collectives specification and the machine's measured g and l ({@code probe}), and
 * asks the selected module to choose; a module may follow the predictions or the user's forced
 * choice, per operation.
 */
public interface CollModule extends Component {
    @Override default Framework framework() { return Framework.COLL; }

    /**
     * Chooses an algorithm. Cheap (no allocation beyond the answer); called once per collectives
     * object and operation, or per call.
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
