package org.lpf4j.coll;

import org.lpf4j.Machine;
import org.lpf4j.MachineLevels;

/**
 * Chooses an {@link Algorithm} from the BSP cost of each variant with the measured g and l.
 *
 * <p><b>One level</b> (the machine reports no {@link Machine#levels() levels}, or the groups are
 * not its nodes): a superstep in which q processes communicate costs {@code h·g(q, m) + l(q, m)}
 * for the largest number h of bytes a process sends or receives in messages of m bytes
 * ({@link Machine#g(int, long)}): q is every member for DIRECT and TWO_PHASE, the group leaders
 * for the tree's upper level and the largest group for its lower level.
 *
 * <p><b>Two levels</b> (the groups are the machine's nodes, {@link Groups#nodes}): a superstep
 * costs {@code l(m) + hIntra·intra.g(m) + hInter·inter.g(m)} ({@link MachineLevels}), with
 * hIntra the bytes the busiest process moves inside its node and hInter the bytes the busiest
 * node moves across nodes (a node's processes share its link: an all-to-all moves
 * {@code t(p − t)} messages across a node of t). The whole machine's l is paid by every
 * superstep, since every sync involves every process.
 *
 * <p>A received byte of a reduction is also combined: it counts twice. Ties go to fewer
 * supersteps. Pure functions, O(number of groups).
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
        MachineLevels lv = levels(m, groups);
        if (lv != null) {
            int c = groups.maxSize(), far = p - groups.minSize();
            // the root's node serves every process off it; in the node, c - 1 read the root
            t[0] = two(m, lv, n, (double) (c - 1) * n, (double) far * n);
            t[1] = two(m, lv, piece, (double) (c - 1) * piece, (double) far * piece)
                    + two(m, lv, piece, (double) (c - 1) * piece, (double) groups.maxCrossing() * piece);
            t[2] = two(m, lv, n, 0, (double) (groups.count - 1) * n) + two(m, lv, n, (double) (c - 1) * n, 0);
            return true;
        }
        t[0] = step(m, p, (double) (p - 1) * n, n);
        t[1] = 2 * step(m, p, (double) (p - 1) * piece, piece);
        t[2] = step(m, groups.count, (double) (groups.count - 1) * n, n)
                + step(m, groups.maxSize(), (double) (groups.maxSize() - 1) * n, n);
        return true;
    }

    /**
     * @param m        machine parameters
     * @param groups   the two-level tree of the p members
     * @param p        members
     * @param num      elements per process
     * @param elemSize bytes per element
     * @return the cheapest reduction variant to all members (allreduce, allcombine)
     */
    static Algorithm reduction(Machine m, Groups groups, int p, long num, long elemSize) {
        return reduction(m, groups, p, num, elemSize, false);
    }

    /**
     * @param rooted whether one member receives the result (reduce, combine); with one level
     *               the busiest member moves the same bytes either way, with two levels the
     *               busiest node does not
     * @return the cheapest reduction variant
     */
    static Algorithm reduction(Machine m, Groups groups, int p, long num, long elemSize, boolean rooted) {
        double[] t = new double[3];
        return reductionTimes(m, groups, p, num, elemSize, rooted, t) ? cheapest(t[0], t[1], t[2]) : Algorithm.DIRECT;
    }

    /**
     * The predicted seconds of DIRECT, TWO_PHASE and TREE into {@code t}.
     *
     * @return false if there is nothing to choose (p ≤ 2 or nothing to send: DIRECT)
     */
    static boolean reductionTimes(Machine m, Groups groups, int p, long num, long elemSize, boolean rooted, double[] t) {
        long n = num * elemSize;
        if (p <= 2 || n == 0) return false;
        long piece = (num + p - 1) / p * elemSize;
        MachineLevels lv = levels(m, groups);
        if (lv != null) {
            int c = groups.maxSize();
            double far = rooted ? p - groups.minSize() : groups.maxCrossing();
            t[0] = two(m, lv, n, 2.0 * (c - 1) * n, 2.0 * far * n);
            t[1] = two(m, lv, piece, 2.0 * (c - 1) * piece, 2.0 * groups.maxCrossing() * piece)
                    + two(m, lv, piece, (double) (c - 1) * piece, far * piece);
            // upper level: leaders into the root, or member i of every node into member i of the others
            double across = rooted ? 2.0 * (groups.count - 1) * n : 2.0 * c * (groups.count - 1) * n;
            t[2] = two(m, lv, n, 2.0 * (c - 1) * n, 0) + two(m, lv, n, 0, across);
            return true;
        }
        // a received byte is also combined: count it twice (the operator runs at memory speed)
        double direct = step(m, p, 2.0 * (p - 1) * n, n);
        double twoPhase = step(m, p, 2.0 * (p - 1) * piece, piece) + step(m, p, (double) (p - 1) * piece, piece);
        // across groups: the root (rooted) or every member (all) receives and combines one n-byte
        // message from each of the other groups, (count-1)·n bytes, counted twice as above
        double tree = step(m, groups.maxSize(), 2.0 * (groups.maxSize() - 1) * n, n)
                + step(m, groups.count, 2.0 * (groups.count - 1) * n, n);
        t[0] = direct;
        t[1] = twoPhase;
        t[2] = tree;
        return true;
    }

    /** @return the machine's levels when the groups are its nodes, else null */
    private static MachineLevels levels(Machine m, Groups groups) {
        return groups.nodes ? m.levels().orElse(null) : null;
    }

    /** One superstep in which {@code q} processes communicate, the busiest moving h bytes. */
    private static double step(Machine m, int q, double h, long msg) {
        int communicating = Math.max(1, Math.min(q, m.p()));
        return h * m.g(communicating, msg) + m.l(communicating, msg);
    }

    /** One superstep on a two-level machine: hIntra bytes inside the busiest process's node, hInter across for the busiest node. */
    private static double two(Machine m, MachineLevels lv, long msg, double hIntra, double hInter) {
        return m.l(msg) + hIntra * lv.intra().g(msg) + hInter * lv.inter().g(msg);
    }

    private static Algorithm cheapest(double direct, double twoPhase, double tree) {
        if (direct <= twoPhase && direct <= tree) return Algorithm.DIRECT;
        return twoPhase <= tree ? Algorithm.TWO_PHASE : Algorithm.TREE;
    }
}
