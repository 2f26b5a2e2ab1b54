package org.lpf4j.builtin;

import org.lpf4j.spi.CollModule;
import org.lpf4j.spi.ModuleParameters;
import org.lpf4j.spi.Parameters;
import org.lpf4j.spi.Query;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Coll module {@code costmodel}: runs the candidate algorithm of least predicted time (the first
 * one on ties), unless the user forces one per operation with
 * {@code lpf.coll.costmodel.<operation>=<algorithm>} (default {@code auto}). The algorithm names
 * are {@link CollModule#ALGORITHMS}; broadcast, reduce, allreduce, combine and allcombine accept
 * all of them, the single-algorithm operations (gather, scatter, allgather, alltoall, allgatherv,
 * alltoallv) only {@code direct}. Any other value is an error naming the key, the value, its source and the
 * valid names (with the nearest one). Priority 10.
 */
public final class CostModelColl extends BuiltinModule implements CollModule {
    private final Map<String, Parameters.Parameter<String>> forced = new LinkedHashMap<>();

    /** For {@link java.util.ServiceLoader}. */
    public CostModelColl() {}

    @Override public String name() { return "costmodel"; }

    @Override
    public void open(ModuleParameters parameters) {
        for (String op : OPERATIONS) {
            List<String> names = new ArrayList<>();
            names.add(AUTO);
            if (WITH_VARIANTS.contains(op)) names.addAll(ALGORITHMS);
            else names.add(ALGORITHMS.get(0));
            forced.put(op, parameters.choice(op, AUTO, names, "algorithm of " + op
                    + ": auto (least predicted time from probe's g and l) or " + String.join("|", names.subList(1, names.size()))));
        }
    }

    @Override
    public String forced(String operation) {
        Parameters.Parameter<String> p = forced.get(operation);
        if (p == null) {
            throw new IllegalArgumentException("coll costmodel: unknown operation '" + operation + "'; operations: "
                    + OPERATIONS);
        }
        return p.get();
    }

    @Override public Query query() { return Query.run(10); }

    @Override
    public String choose(String operation, Map<String, Double> predictedSeconds) {
        if (predictedSeconds.isEmpty()) throw new IllegalArgumentException("coll costmodel: no candidate algorithm for " + operation);
        Parameters.Parameter<String> p = forced.get(operation);
        String want = p == null ? AUTO : p.get();
        if (!want.equals(AUTO)) {
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
