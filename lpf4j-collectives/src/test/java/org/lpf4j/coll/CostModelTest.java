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
        assertEquals(Algorithm.DIRECT, CostModel.reduction(m, g8, 8, 1, 8, true), "one double");
        assertEquals(Algorithm.TWO_PHASE, CostModel.reduction(m, g8, 8, MIB / 8, 8, true), "1 MiB of doubles");
        assertEquals(Algorithm.TWO_PHASE, CostModel.reduction(m, g8, 8, MIB / 8, 8, false), "rooted, 1 MiB");
        Machine smallIsSlow = machine(16, 1e-6, 1e-9, 1e-5);
        assertEquals(Algorithm.TREE, CostModel.reduction(smallIsSlow, new Groups(16), 16, MIB / 8, 8, false),
                "small pieces are expensive: the tree keeps messages whole");
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
}
