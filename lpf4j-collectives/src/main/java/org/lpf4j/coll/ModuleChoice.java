package org.lpf4j.coll;

import org.lpf4j.Machine;
import org.lpf4j.spi.CollModule;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The algorithm of an operation that nothing forced, chosen by the selected {@code coll} module
 * ({@link CollModule#choose}) from the predicted time of each variant ({@link CostModel}).
 * Without a module (a strict subset of the processes) or a measured machine, or when there is
 * nothing to choose (p ≤ 2, nothing to send), it is {@link Algorithm#DIRECT}. The answer is
 * cached per operation and size, so a loop of same-sized calls asks the module once; asking
 * allocates the module's map of three predictions. Used by one thread, like its collectives object.
 */
final class ModuleChoice {
    private static final String[] NAMES = CollModule.ALGORITHMS.toArray(String[]::new);

    private final CollModule module;
    private final Machine machine;
    private final Groups groups;
    private final int p;
    private final double[] times = new double[3];
    private final long[] cachedNum = new long[ForcedAlgorithms.OPERATIONS.length];
    private final long[] cachedSize = new long[ForcedAlgorithms.OPERATIONS.length];
    private final Algorithm[] cached = new Algorithm[ForcedAlgorithms.OPERATIONS.length];

    ModuleChoice(CollModule module, Machine machine, Groups groups, int p) {
        this.module = module;
        this.machine = machine;
        this.groups = groups;
        this.p = p;
    }

    /** @return the broadcast variant for {@code n} bytes */
    Algorithm broadcast(long n) {
        if (hit(ForcedAlgorithms.BROADCAST, 1, n)) return cached[ForcedAlgorithms.BROADCAST];
        boolean choice = module != null && machine != null && CostModel.broadcastTimes(machine, groups, p, n, times);
        return remember(ForcedAlgorithms.BROADCAST, 1, n, choice);
    }

    /** @return the variant of reduction {@code operation} for num elements of size bytes */
    Algorithm reduction(int operation, long num, long size) {
        if (hit(operation, num, size)) return cached[operation];
        boolean choice = module != null && machine != null
                && CostModel.reductionTimes(machine, groups, p, num, size,
                        operation == ForcedAlgorithms.REDUCE || operation == ForcedAlgorithms.COMBINE, times);
        return remember(operation, num, size, choice);
    }

    private boolean hit(int operation, long num, long size) {
        return cached[operation] != null && cachedNum[operation] == num && cachedSize[operation] == size;
    }

    private Algorithm remember(int operation, long num, long size, boolean choice) {
        Algorithm a = Algorithm.DIRECT;
        if (choice) {
            Map<String, Double> predicted = new LinkedHashMap<>();
            for (int k = 0; k < NAMES.length; k++) predicted.put(NAMES[k], times[k]);
            String name = ForcedAlgorithms.OPERATIONS[operation];
            a = ForcedAlgorithms.parse(module.choose(name, predicted), "coll module " + module.name() + " chose for " + name);
        }
        cached[operation] = a;
        cachedNum[operation] = num;
        cachedSize[operation] = size;
        return a;
    }
}
