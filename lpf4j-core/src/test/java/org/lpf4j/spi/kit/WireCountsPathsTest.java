package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link WireCounts#connections(int)}: the engine's count per path, -1 where it counts none, and a path out of range named. */
class WireCountsPathsTest {
    @Test
    void connectionsByPathAreTheEnginesOrMinusOneWhereNotCounted() {
        WireCounts net = new WireCounts(true, () -> 6, path -> new int[] {1, 2, 3}[path]);
        assertEquals(1, net.connections(WireCounts.IN_JVM));
        assertEquals(2, net.connections(WireCounts.SHARED_MEMORY));
        assertEquals(3, net.connections(WireCounts.TCP));
        assertTrue(net.toString().contains("6 connections (in-JVM 1, shared memory 2, TCP 3)"), net.toString());
        WireCounts mpi = new WireCounts(false, null);
        for (int path = 0; path < WireCounts.PATHS; path++) assertEquals(-1, mpi.connections(path));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> net.connections(WireCounts.PATHS));
        assertTrue(e.getMessage().contains("WireCounts.connections(3)"), e.getMessage());
        assertTrue(WireCounts.csvHeader().endsWith(",connections,connections_in_jvm,connections_shm,connections_tcp"), WireCounts.csvHeader());
    }
}
