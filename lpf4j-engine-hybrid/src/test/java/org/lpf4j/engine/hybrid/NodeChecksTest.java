package org.lpf4j.engine.hybrid;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The start-of-section checks of a hybrid section (Link.refusal): an exec's layout may give nodes
 * different thread counts (5 processes on 3 nodes: 2 + 2 + 1) and must start, also where nodes
 * are grouped by host (a real cluster); a hook's ranks must agree; two nodes on one host are
 * refused unless every rank is a node of its own.
 */
class NodeChecksTest {
    private static final String[] THREE_HOSTS = {"a", "b", "c"};

    @Test
    void anUnevenExecLayoutStartsOnACluster() {
        assertNull(Link.refusal(new int[] {2, 2, 1}, THREE_HOSTS, true, null, 0));
    }

    @Test
    void aHookWhoseRanksDisagreeIsRefusedNamingTheCall() {
        RuntimeException e = Link.refusal(new int[] {2, 3, 2}, THREE_HOSTS, false, "hook(MpiHybrid.init(comm=1, threadsPerNode=3))", 1);
        assertInstanceOf(IllegalArgumentException.class, e);
        assertTrue(e.getMessage().startsWith("hook(MpiHybrid.init(comm=1, threadsPerNode=3)) at rank 1: the ranks run between 2 and 3"
                + " threads per node (this rank 3)"), e.getMessage());
        assertNull(Link.refusal(new int[] {3, 3, 3}, THREE_HOSTS, false, "hook(...)", 0));
    }

    @Test
    void twoNodesOnOneHostAreRefusedUnlessEveryRankIsANode() {
        String[] shared = {"a", "b", "a"};
        RuntimeException e = Link.refusal(new int[] {2, 2, 2}, shared, true, null, 2);
        assertInstanceOf(IllegalStateException.class, e);
        assertTrue(e.getMessage().contains("node JVMs [0, 2] all run on host a"), e.getMessage());
        assertNull(Link.refusal(new int[] {2, 2, 2}, shared, false, null, 2));
    }
}
