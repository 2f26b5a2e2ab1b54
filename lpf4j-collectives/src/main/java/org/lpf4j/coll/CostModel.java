package org.lpf4j.coll;

import org.lpf4j.Machine;

/**
 * Chooses an {@link Algorithm} from the BSP cost of each variant with the measured g and l:
 * a superstep costs {@code h·g(m) + l(m)} for the largest number h of bytes a process sends or
 * receives in messages of m bytes. Ties go to fewer supersteps. Pure functions, O(1).
 */
final class CostModel {
    private CostModel() {}

    /**
     * @param m machine parameters
     * @param groups the two-level tree of the p members
     * @param p      members
     * @param n      bytes broadcast
     * @return the cheapest broadcast variant
     */
    static Algorithm broadcast(Machine m, Groups groups, int p, long n) {
        if (p <= 2 || n == 0) return Algorithm.DIRECT;
        long piece = (n + p - 1) / p;
        double direct = step(m, (double) (p - 1) * n, n);
        double twoPhase = 2 * step(m, (double) (p - 1) * piece, piece);
        double tree = step(m, (double) (groups.count - 1) * n, n) + step(m, (double) (groups.maxSize() - 1) * n, n);
        return cheapest(direct, twoPhase, tree);
    }

    /**
     * @param m        machine parameters
     * @param groups   the two-level tree of the p members
     * @param p        members
     * @param num      elements per process
     * @param elemSize bytes per element
     * @return the cheapest reduction variant (the same for reduce/combine and allreduce/allcombine:
     *         their busiest members move the same bytes in each variant)
     */
    static Algorithm reduction(Machine m, Groups groups, int p, long num, long elemSize) {
        long n = num * elemSize;
        if (p <= 2 || n == 0) return Algorithm.DIRECT;
        long piece = (num + p - 1) / p * elemSize;
        // a received byte is also combined: count it twice (the operator runs at memory speed)
        double direct = step(m, 2.0 * (p - 1) * n, n);
        double twoPhase = step(m, 2.0 * (p - 1) * piece, piece) + step(m, (double) (p - 1) * piece, piece);
        // across groups: the root (rooted) or every member (all) receives and combines one n-byte
        // message from each of the other groups, (count-1)·n bytes, counted twice as above
        double tree = step(m, 2.0 * (groups.maxSize() - 1) * n, n) + step(m, 2.0 * (groups.count - 1) * n, n);
        return cheapest(direct, twoPhase, tree);
    }

    private static double step(Machine m, double h, long msg) {
        return h * m.g(msg) + m.l(msg);
    }

    private static Algorithm cheapest(double direct, double twoPhase, double tree) {
        if (direct <= twoPhase && direct <= tree) return Algorithm.DIRECT;
        return twoPhase <= tree ? Algorithm.TWO_PHASE : Algorithm.TREE;
    }
}
