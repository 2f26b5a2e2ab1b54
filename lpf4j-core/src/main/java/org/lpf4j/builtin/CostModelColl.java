package org.lpf4j.builtin;

import org.lpf4j.spi.CollModule;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.Query;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Coll module {@code costmodel}: runs the candidate algorithm of least predicted time (the first
 * one on ties), unless the user forces one per operation with
 * {@code lpf.coll.costmodel.<operation>=<algorithm>} (default {@code auto}). Priority 10.
 */
public final class CostModelColl extends BuiltinModule implements CollModule {
    /** The operations of the LPF collectives specification. */
    public static final List<String> OPERATIONS = List.of("broadcast", "gather", "scatter", "allgather", "alltoall",
            "reduce", "allreduce", "combine", "allcombine");

    private final Map<String, Parameters.Parameter<String>> forced = new LinkedHashMap<>();

    /** For {@link java.util.ServiceLoader}. */
    public CostModelColl() {}

    @Override public String name() { return "costmodel"; }

    @Override
    public void open(ModuleParameters parameters) {
        for (String op : OPERATIONS) {
            forced.put(op, parameters.string(op, "auto",
                    "algorithm of " + op + ": auto (least predicted time from probe's g and l) or an algorithm name"));
        }
    }

    @Override public Query query() { return Query.run(10); }

    @Override
    public String choose(String operation, Map<String, Double> predictedSeconds) {
        if (predictedSeconds.isEmpty()) throw new IllegalArgumentException("coll costmodel: no candidate algorithm for " + operation);
        Parameters.Parameter<String> p = forced.get(operation);
        String want = p == null ? "auto" : p.get().trim();
        if (!want.equals("auto")) {
            if (!predictedSeconds.containsKey(want)) {
                throw new IllegalArgumentException(p.key() + "=" + want + " (from " + p.source().label() + "): "
                        + operation + " has no algorithm '" + want + "'; candidates: " + predictedSeconds.keySet());
            }
            return want;
        }
        String best = null;
        double bestTime = Double.POSITIVE_INFINITY;
        for (Map.Entry<String, Double> e : predictedSeconds.entrySet()) {
            if (best == null || e.getValue() < bestTime) {
                best = e.getKey();
                bestTime = e.getValue();
            }
        }
        return best;
    }
}
