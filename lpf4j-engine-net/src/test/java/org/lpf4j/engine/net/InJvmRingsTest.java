package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The share of a JVM's direct memory that the rings between its own ranks may take. */
class InJvmRingsTest {
    private static final long MIB = 1 << 20;

    @Test
    void ringsLeaveTheBuffersOfEveryMeshAndASixteenthOfTheLimit() {
        InJvmRings budget = new InJvmRings(64 * MIB);
        assertEquals(60 * MIB, budget.available());
        budget.reserveBuffers(InJvmRings.bufferBytes(65)); // 64 peers, two connections of 128 KiB each
        assertEquals(44 * MIB, budget.available());
        assertNull(budget.take(44 * MIB + 1));
        assertNotNull(budget.take(44 * MIB));
        assertNull(budget.take(1));
        budget.releaseBuffers(InJvmRings.bufferBytes(65));
        assertEquals(16 * MIB, budget.available());
    }

    @Test
    void aPairsRingsReturnWhenBothEndsHaveDroppedThem() {
        InJvmRings budget = new InJvmRings(16 * MIB);
        InJvmRings.Lease lease = budget.take(10 * MIB);
        assertNotNull(lease);
        assertEquals(5 * MIB, budget.available());
        lease.drop();
        assertEquals(5 * MIB, budget.available(), "one end still uses them");
        lease.drop();
        assertEquals(15 * MIB, budget.available());
    }

    @Test
    void aLeaseWhoseRingsWereNeverMadeReturnsAtOnceAndOnce() {
        InJvmRings budget = new InJvmRings(16 * MIB);
        InJvmRings.Lease lease = budget.take(10 * MIB);
        lease.cancel();
        assertEquals(15 * MIB, budget.available());
        lease.cancel();
        lease.drop();
        assertEquals(15 * MIB, budget.available(), "nothing returned twice");
    }

    @Test
    void aConnectionsBuffersAreTheProcesssShareBetween32And64KiB() {
        assertEquals(64 << 10, Mesh.bufferBytes(32 * MIB, 2));
        assertEquals(64 << 10, Mesh.bufferBytes(32 * MIB, 129), "32 MiB over 4 x 128 buffers");
        assertEquals((int) (32 * MIB / (4 * 191)), Mesh.bufferBytes(32 * MIB, 192));
        assertEquals(32 << 10, Mesh.bufferBytes(32 * MIB, 1025));
        assertEquals(32 << 10, Mesh.bufferBytes(MIB, 64));
        assertEquals(2 * 2 * 3 * (64 << 10), InJvmRings.bufferBytes(4), "the parameter's default, 3 peers");
    }

    @Test
    void theLimitIsTheJvmsMaximumDirectMemory() {
        long limit = InJvmRings.maxDirectMemory();
        assertEquals(Runtime.getRuntime().maxMemory(), limit, "surefire's JVM sets no -XX:MaxDirectMemorySize");
    }
}
