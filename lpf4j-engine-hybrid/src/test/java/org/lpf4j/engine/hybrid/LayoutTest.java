package org.lpf4j.engine.hybrid;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where a section's processes live, and how the job's idle nodes lend their processors. */
class LayoutTest {
    @ParameterizedTest(name = "p={0} on {1} nodes of {2}")
    @CsvSource({"1,1,4", "2,2,4", "5,2,4", "8,2,4", "2,3,2", "1,3,2", "5,3,2", "6,3,2", "3,8,1", "2,5,4"})
    void everyProcessHasANodeAndTheNodesHoldTheWholeJob(int p, int available, int threadsPerNode) {
        Layout layout = Layout.of(p, available, threadsPerNode);
        assertEquals(p, layout.first()[layout.nodes()], "every pid on some node");
        int lent = 0;
        for (int k = 0; k < layout.nodes(); k++) {
            assertTrue(layout.threads(k) >= 1 && layout.threads(k) <= threadsPerNode, "node " + k + ": " + layout);
            assertTrue(layout.nodeShare(k) >= 1, "node " + k + " has at least itself");
            lent += layout.nodeShare(k);
            for (int pid = layout.first()[k]; pid < layout.first()[k + 1]; pid++) assertEquals(k, layout.nodeOf(pid));
        }
        assertEquals(available, lent, "the section's nodes hold every node of the job: " + layout);
    }

    @ParameterizedTest(name = "p={0} on {1} nodes of 2: shares {2}")
    @CsvSource({"2,3,2 1", "1,3,3", "4,3,1 1 1", "2,5,3 2", "4,2,1 1"})
    void idleNodesAreLentToTheFirstNodesFirst(int p, int available, String shares) {
        Layout layout = Layout.of(p, available, 2);
        StringBuilder got = new StringBuilder();
        for (int k = 0; k < layout.nodes(); k++) got.append(k == 0 ? "" : " ").append(layout.nodeShare(k));
        assertEquals(shares, got.toString(), layout.toString());
    }
}
