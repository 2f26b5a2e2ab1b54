package org.lpf4j;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link MachineLevels} and {@link Machine#levels()}: layout arithmetic, the checks, and that other changes keep the levels. */
class MachineLevelsTest {
    private static Machine machine(int p, double g) {
        return new Machine(p, 0, new long[] {8, 64}, new double[] {g, g / 2}, new double[] {1e-5, 1e-5});
    }

    @Test
    void layoutOfUnevenNodes() {
        MachineLevels lv = new MachineLevels(new int[] {3, 2, 2}, machine(3, 1e-9), machine(3, 1e-8));
        assertEquals(3, lv.nodes());
        assertEquals(7, lv.p());
        int[] want = {0, 0, 0, 1, 1, 2, 2};
        for (int pid = 0; pid < 7; pid++) assertEquals(want[pid], lv.nodeOf(pid), "nodeOf(" + pid + ")");
        assertEquals(0, lv.firstPid(0));
        assertEquals(3, lv.firstPid(1));
        assertEquals(5, lv.firstPid(2));
        assertEquals(2, lv.nodeSize(2));
        assertThrows(IllegalArgumentException.class, () -> lv.nodeOf(7));
        assertThrows(IllegalArgumentException.class, () -> lv.nodeSize(3));
    }

    @Test
    void machineCarriesLevelsThroughOtherChanges() {
        Machine whole = machine(4, 2e-9);
        assertFalse(whole.levels().isPresent(), "no levels unless an engine adds them");
        MachineLevels lv = new MachineLevels(new int[] {2, 2}, machine(2, 1e-9), machine(2, 1e-8));
        Machine m = whole.withLevels(lv).withWarning("w").withSubsetG(2, new double[] {1, 1});
        assertSame(lv, m.levels().orElseThrow());
        assertTrue(m.toString().contains("2 nodes (2 + 2)"), m::toString);
    }

    @Test
    void inconsistentLevelsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new MachineLevels(new int[] {2, 0}, machine(2, 1), machine(2, 1)));
        assertThrows(IllegalArgumentException.class, () -> new MachineLevels(new int[] {2, 2}, machine(2, 1), machine(3, 1)),
                "inter.p() must be the node count");
        assertThrows(IllegalArgumentException.class, () -> new MachineLevels(new int[] {2, 2}, machine(3, 1), machine(2, 1)),
                "intra.p() must fit in a node");
        MachineLevels lv = new MachineLevels(new int[] {2, 2}, machine(2, 1), machine(2, 1));
        assertThrows(IllegalArgumentException.class, () -> machine(5, 1).withLevels(lv), "levels of 4 on a machine of 5");
        Machine nested = machine(2, 1).withLevels(new MachineLevels(new int[] {1, 1}, machine(1, 1), machine(2, 1)));
        assertThrows(IllegalArgumentException.class, () -> new MachineLevels(new int[] {2, 2}, nested, machine(2, 1)));
    }
}
