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
        double[] t = new double[3];
        return broadcastTimes(m, groups, p, n, t) ? cheapest(t[0], t[1], t[2]) : Algorithm.DIRECT;
    }

    /**
     * The predicted seconds of DIRECT, TWO_PHASE and TREE into {@code t}.
     *
     * @return false if there is nothing to choose (p ≤ 2 or nothing to send: DIRECT)
     */
    static boolean broadcastTimes(Machine m, Groups groups, int p, long n, double[] t) {
        if (p <= 2 || n == 0) return false;
        long piece = (n + p - 1) / p;
        t[0] = step(m, (double) (p - 1) * n, n);
        t[1] = 2 * step(m, (double) (p - 1) * piece, piece);
        t[2] = step(m, (double) (groups.count - 1) * n, n) + step(m, (double) (groups.maxSize() - 1) * n, n);
        return true;
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
        double[] t = new double[3];
        return reductionTimes(m, groups, p, num, elemSize, t) ? cheapest(t[0], t[1], t[2]) : Algorithm.DIRECT;
    }

    /**
     * The predicted seconds of DIRECT, TWO_PHASE and TREE into {@code t}.
     *
     * @return false if there is nothing to choose (p ≤ 2 or nothing to send: DIRECT)
     */
    static boolean reductionTimes(Machine m, Groups groups, int p, long num, long elemSize, double[] t) {
        long n = num * elemSize;
        if (p <= 2 || n == 0) return false;
        long piece = (num + p - 1) / p * elemSize;
        // a received byte is also combined: count it twice (the operator runs at memory speed)
        double direct = step(m, 2.0 * (p - 1) * n, n);
        double twoPhase = step(m, 2.0 * (p - 1) * piece, piece) + step(m, (double) (p - 1) * piece, piece);
        // across groups: the root (rooted) or every member (all) receives and combines one n-byte
        // message from each of the other groups, (count-1)·n bytes, counted twice as above
        double tree = step(m, 2.0 * (groups.maxSize() - 1) * n, n) + step(m, 2.0 * (groups.count - 1) * n, n);
        t[0] = direct;
        t[1] = twoPhase;
        t[2] = tree;
        return true;
    }

    private static double step(Machine m, double h, long msg) {
        return h * m.g(msg) + m.l(msg);
    }

    private static Algorithm cheapest(double direct, double twoPhase, double tree) {
        if (direct <= twoPhase && direct <= tree) return Algorithm.DIRECT;
        return twoPhase <= tree ? Algorithm.TWO_PHASE : Algorithm.TREE;
    }
}
