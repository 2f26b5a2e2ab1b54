package org.lpf4j.coll;

import org.junit.jupiter.api.Test;
import org.lpf4j.Machine;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The cost model picks each variant where the BSP cost table says it is cheapest. */
class CostModelTest {
    private static final long MIB = 1 << 20;

    /** A machine with the given g for small (≤ 4 KiB) and large messages and latency l. */
    private static Machine machine(int p, double gSmall, double gLarge, double l) {
        return new Machine(p, p, new long[]{4096, MIB}, new double[]{gSmall, gLarge}, new double[]{l, l});
    }

    @Test
    void broadcast() {
        Machine m = machine(8, 1e-9, 1e-9, 1e-5);
        Groups g8 = new Groups(8);
        assertEquals(Algorithm.DIRECT, CostModel.broadcast(m, g8, 8, 8), "a small vector: latency dominates");
        assertEquals(Algorithm.TWO_PHASE, CostModel.broadcast(m, g8, 8, MIB), "a large vector: bandwidth dominates");
        Machine smallIsSlow = machine(16, 1e-6, 1e-9, 1e-5);
        assertEquals(Algorithm.TREE, CostModel.broadcast(smallIsSlow, new Groups(16), 16, MIB),
                "small pieces are expensive: the tree keeps messages whole");
        assertEquals(Algorithm.DIRECT, CostModel.broadcast(m, new Groups(2), 2, MIB), "p = 2");
        assertEquals(Algorithm.DIRECT, CostModel.broadcast(m, g8, 8, 0), "nothing to send");
    }

    @Test
    void reductions() {
        Machine m = machine(8, 1e-9, 1e-9, 1e-5);
        Groups g8 = new Groups(8);
        assertEquals(Algorithm.DIRECT, CostModel.reduction(m, g8, 8, 1, 8), "one double");
        assertEquals(Algorithm.TWO_PHASE, CostModel.reduction(m, g8, 8, MIB / 8, 8), "1 MiB of doubles, rooted or to all");
        Machine smallIsSlow = machine(16, 1e-6, 1e-9, 1e-5);
        assertEquals(Algorithm.TREE, CostModel.reduction(smallIsSlow, new Groups(16), 16, MIB / 8, 8),
                "small pieces are expensive: the tree keeps messages whole");
    }

    /**
     * In TREE allreduce/allcombine the busiest member receives and combines (G−1)·N bytes across
     * groups, as the root of a rooted reduction does: the model must not charge it twice that.
     */
    @Test
    void treeAllreduceCostsWhatTheRootedTreeCosts() {
        // 64 KiB pieces cost 5 g: TWO_PHASE 45·64Ki·5g ≈ 14.1 Mi·g, TREE 2·(2·3·1Mi·g) = 12 Mi·g,
        // where charging the all-to-all step 4(G−1)N (18 Mi·g) would pick TWO_PHASE instead
        Machine m = new Machine(16, 16, new long[]{64 << 10, MIB}, new double[]{5e-9, 1e-9}, new double[]{1e-5, 1e-5});
        assertEquals(Algorithm.TREE, CostModel.reduction(m, new Groups(16), 16, MIB / 8, 8));
    }

    /** A tree level is priced with g of the processes that communicate in it, not of all p. */
    @Test
    void treeLevelsUseGOfTheirOwnProcessCount() {
        Machine m = machine(16, 1e-9, 1e-9, 1e-5);
        Groups g16 = new Groups(16); // 4 groups of 4
        assertEquals(Algorithm.TWO_PHASE, CostModel.broadcast(m, g16, 16, MIB), "with g(16) everywhere");
        Machine fourAreFast = m.withSubsetG(4, new double[]{1e-10, 1e-10});
        assertEquals(Algorithm.TREE, CostModel.broadcast(fourAreFast, g16, 16, MIB),
                "both tree levels have 4 communicating processes, at g(4) = g(16)/10");
        assertEquals(1e-10, fourAreFast.g(4, MIB));
        assertEquals(1e-9, fourAreFast.g(3, MIB), "not measured at 3: the p-process upper bound");
        assertEquals(1e-9, fourAreFast.g(16, MIB));
        assertEquals(1e-5, fourAreFast.l(4, MIB), "every sync involves all p");
    }

    @Test
    void groupsCoverEveryRankOnceWithSizesDifferingByAtMostOne() {
        for (int p = 1; p <= 40; p++) {
            Groups g = new Groups(p);
            int covered = 0;
            for (int k = 0; k < g.count; k++) {
                assertEquals(covered, g.start(k), "p=" + p + " group " + k);
                for (int v = g.start(k); v < g.start(k) + g.size(k); v++) assertEquals(k, g.of(v), "p=" + p + " v=" + v);
                covered += g.size(k);
                assertEquals(true, g.maxSize() - g.size(k) <= 1, "p=" + p);
            }
            assertEquals(p, covered, "p=" + p);
        }
    }

    /** Two nodes of 4: memory copies 1000 times cheaper per byte than the network. */
    private static Machine twoNodesOfFour() {
        Machine whole = machine(8, 1e-8, 1e-8, 1e-5);
        return whole.withLevels(new org.lpf4j.MachineLevels(new int[] {4, 4}, machine(4, 1e-11, 1e-11, 1e-6),
                machine(2, 1e-8, 1e-8, 1e-5)));
    }

    @Test
    void groupsAreTheNodesWhenTheMachineReportsThem() {
        Groups nodes = Groups.of(7, machine(7, 1e-9, 1e-9, 1e-5).withLevels(new org.lpf4j.MachineLevels(new int[] {3, 2, 2},
                machine(3, 1e-9, 1e-9, 1e-5), machine(3, 1e-9, 1e-9, 1e-5))));
        assertEquals(true, nodes.nodes);
        assertEquals(3, nodes.count);
        assertEquals(3, nodes.start(1));
        assertEquals(2, nodes.size(2));
        assertEquals(1, nodes.of(4));
        assertEquals(2, nodes.of(5));
        assertEquals(5, nodes.virtual(5, 3), "node groups are not rotated by the root");
        assertEquals(3, nodes.leader(4, 3), "the root leads its own node");
        assertEquals(5, nodes.leader(6, 3), "another node's leader is its first pid");
        Groups plain = Groups.of(7, machine(7, 1e-9, 1e-9, 1e-5));
        assertEquals(false, plain.nodes);
        assertEquals(new Groups(7).count, plain.count, "without levels: the √p groups");
        assertEquals(false, Groups.of(7, null).nodes);
    }

    @Test
    void twoLevelPricingSendsTheTreeAcrossNodesOnce() {
        Machine m = twoNodesOfFour();
        Groups nodes = Groups.of(8, m);
        assertEquals(Algorithm.TREE, CostModel.broadcast(m, nodes, 8, MIB), "one copy per node across the network");
        assertEquals(Algorithm.TWO_PHASE, CostModel.broadcast(m, new Groups(8), 8, MIB),
                "the same whole-machine figures without levels: the one-level table");
        assertEquals(Algorithm.TREE, CostModel.reduction(m, nodes, 8, MIB / 8, 8, true), "rooted 1 MiB");
        assertEquals(Algorithm.DIRECT, CostModel.reduction(m, nodes, 8, 1, 8, false), "one double: latency dominates");
        double[] rooted = new double[3], all = new double[3];
        CostModel.reductionTimes(m, nodes, 8, MIB / 8, 8, true, rooted);
        CostModel.reductionTimes(m, nodes, 8, MIB / 8, 8, false, all);
        for (int k = 0; k < 3; k++) assertEquals(true, rooted[k] < all[k], "to all moves more across nodes, variant " + k);
    }

    @Test
    void aRootedReductionOfOneElementPricesTheTransposeAboveDirect() {
        // With one element the transpose is DIRECT's puts and then an empty superstep.
        Machine two = twoNodesOfFour(), flat = machine(8, 1e-9, 1e-9, 1e-5);
        for (Machine m : new Machine[] {two, flat}) {
            for (Groups g : new Groups[] {Groups.of(8, m), new Groups(8)}) {
                for (long size = 8; size <= 16 * MIB; size *= 4) {
                    double[] t = new double[3];
                    CostModel.reductionTimes(m, g, 8, 1, size, true, t);
                    assertEquals(true, t[1] > t[0], "one element of " + size + " B, groups " + g.count + ": " + t[0] + " vs " + t[1]);
                    assertEquals(false, CostModel.reduction(m, g, 8, 1, size, true) == Algorithm.TWO_PHASE, size + " B");
                }
            }
        }
    }
}
