package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the net engine tells an engine layered on it (NodeLevelEngine): a JVM's place among those
 * {@link NetLaunch} started on this machine, and the wait a layered engine asks for.
 */
class NodeLevelTest {
    @Test
    void aJvmNetLaunchStartedKnowsItsPlaceOnThisMachine() {
        assertArrayEquals(new int[] {1, 4}, NetEngineProvider.launchedLocalRank(
                Map.of(NetLaunch.SIZE_VARIABLE, "4", NetLaunch.RANK_VARIABLE, "1")::get));
        assertNull(NetEngineProvider.launchedLocalRank(Map.of(NetLaunch.SIZE_VARIABLE, "4")::get), "no rank");
        assertNull(NetEngineProvider.launchedLocalRank(Map.<String, String>of()::get), "not started by NetLaunch");
        assertNull(NetEngineProvider.launchedLocalRank(Map.of(NetLaunch.SIZE_VARIABLE, "4", NetLaunch.RANK_VARIABLE, "4")::get),
                "rank beyond size");
        assertNull(NetEngineProvider.launchedLocalRank(Map.of(NetLaunch.SIZE_VARIABLE, "x", NetLaunch.RANK_VARIABLE, "0")::get));
    }

    @Test
    void theLayeredEnginesWaitPolicyWinsOverTheCount() {
        Boolean before = WaitRequest.yield;
        try {
            WaitRequest.yield = null;
            assertTrue(WaitRequest.crowded("auto", 3, 2), "more local processes than cores");
            assertFalse(WaitRequest.crowded("auto", 2, 2));
            new NetEngineProvider().waitPolicy(false); // a bound node: spins on its own cores
            assertFalse(WaitRequest.crowded("auto", 3, 2));
            new NetEngineProvider().waitPolicy(true); // node threads may need the core
            assertTrue(WaitRequest.crowded("auto", 1, 8));
        } finally {
            WaitRequest.yield = before;
        }
    }

    @Test
    void theUsersWaitWinsOverTheLayeredEngineAndTheCount() {
        Boolean before = WaitRequest.yield;
        try {
            for (Boolean layered : new Boolean[] {null, false, true}) {
                WaitRequest.yield = layered;
                assertTrue(WaitRequest.crowded("yield", 1, 8), "yield, layered " + layered + ", one process on 8 cores");
                assertFalse(WaitRequest.crowded("spin", 9, 2), "spin, layered " + layered + ", 9 processes on 2 cores");
            }
        } finally {
            WaitRequest.yield = before;
        }
    }
}
