package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.spi.kit.BulkCopy;
import org.lpf4j.superstep.ProtocolSettings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections made on first use, threads as processes over loopback: a ring program at p = 8
 * (after the start-up barrier, as a real job's) dials at most 2 + ⌈log2 p⌉ connections per
 * process and holds no all-pairs mesh; when both sides of a pair dial at once, the lower rank's
 * connection is the main one and the higher's becomes its large-payload one; and a process that
 * dies is named at the next sync of every other, also of one that never held a connection to it;
 * a wait ends only once what it sent is written, also over connections still being made.
 */
@Timeout(120)
class LazyConnectionsTest {
    /** The net engine's defaults: the pairs in the round up to 16 processes. */
    private static final NetSections SECTIONS = new NetSections(new ProtocolSettings(16, "auto", 8, BulkCopy.resolve()),
            "lazytest", 10_000_000L);

    /** Puts to both neighbours for a few supersteps; checks what arrived. */
    private static void ring(Mesh mesh) {
        FatalException f = SECTIONS.run(mesh, mesh.nextSection(), mesh.size(), ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            MemorySegment x = Arena.ofAuto().allocate(16), mine = Arena.ofAuto().allocate(8);
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot xs = ctx.registerGlobal(x), ms = ctx.registerLocal(mine);
            ctx.sync();
            for (long step = 1; step <= 5; step++) {
                mine.set(ValueLayout.JAVA_LONG, 0, 100 * step + s);
                ctx.put(ms, 0, (s + 1) % n, xs, 0, 8);
                ctx.put(ms, 0, (s - 1 + n) % n, xs, 8, 8);
                ctx.sync();
                assertEquals(100 * step + (s - 1 + n) % n, x.get(ValueLayout.JAVA_LONG, 0), "from the left");
                assertEquals(100 * step + (s + 1) % n, x.get(ValueLayout.JAVA_LONG, 8), "from the right");
            }
            ctx.deregister(xs);
        }, Args.NONE, "exec", 1);
        if (f != null) throw f;
    }

    /**
     * A process that stops calling the mesh after a wait (it computes, or closes its boot session
     * and waits for the others there, as the first rank of a JVM of several does) holds no peer
     * up: the wait ends only once the frames it sent are written, also those whose connection
     * was still being made. Each process joins, then waits outside the mesh until every process
     * joined; then it sends to the rank 3 after it over a connection not made yet, receives from
     * the rank 3 before it, and waits outside the mesh again.
     */
    @Test
    void aProcessThatStopsCallingTheMeshAfterAWaitHoldsNoPeerUp() throws Exception {
        int p = 8;
        CountDownLatch joined = new CountDownLatch(p), exchanged = new CountDownLatch(p);
        Throwable[] thrown = SparseConsensusTest.job(p, (rank, mesh) -> {
            try (mesh) {
                try {
                    mesh.join(20_000);
                } finally {
                    joined.countDown();
                }
                assertTrue(joined.await(30, TimeUnit.SECONDS), "every process joined");
                int[] pending = new int[1];
                try {
                    mesh.receive(Frame.COLLECTIVE, MemorySegment.NULL, 0, 0, (rank - 3 + p) % p, pending, 0);
                    mesh.send(Frame.COLLECTIVE, 0, MemorySegment.NULL, 0, 0, (rank + 3) % p, pending, 0);
                    mesh.await(pending, 0, "the exchange");
                } finally {
                    exchanged.countDown();
                }
                assertTrue(exchanged.await(30, TimeUnit.SECONDS), "every process exchanged");
            }
        });
        for (Throwable t : thrown) if (t != null) throw new AssertionError("a process failed", t);
    }

    @Test
    void aRingAtEightDialsAtMostTwoPlusLogPConnectionsPerProcess() throws Exception {
        int p = 8, bound = 2 + 3;
        int[] dialled = new int[p], accepted = new int[p], peers = new int[p];
        Throwable[] thrown = SparseConsensusTest.job(p, (rank, mesh) -> {
            try (mesh) {
                mesh.join(20_000);
                ring(mesh);
                dialled[rank] = mesh.connectionsDialled();
                accepted[rank] = mesh.connectionsAccepted();
                peers[rank] = mesh.peersConnected();
            }
        });
        for (Throwable t : thrown) if (t != null) throw new AssertionError("a process failed", t);
        String counts = "dialled " + Arrays.toString(dialled) + ", accepted " + Arrays.toString(accepted) + ", peers "
                + Arrays.toString(peers);
        for (int r = 0; r < p; r++) {
            assertTrue(dialled[r] <= bound, "pid " + r + " dialled at most " + bound + ": " + counts);
            assertTrue(peers[r] < p - 1, "pid " + r + " is not connected to everyone: " + counts);
        }
        assertEquals(Arrays.stream(dialled).sum(), Arrays.stream(accepted).sum(), "every dial was accepted once: " + counts);
        System.out.println("LazyConnectionsTest: a ring at p = 8: " + counts);
    }

    /**
     * The acceptor's rule, which both sides of a pair apply to the same two dials: the lower
     * rank's main connection wins, the higher rank's then carries its large payloads.
     */
    @Test
    void whenBothDialTheMainConnectionTheLowerRanksWins() throws Exception {
        try (Selector s = Selector.open(); ServerSocketChannel unused = ServerSocketChannel.open();
             ServerSocketChannel closed = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            InetSocketAddress nowhere = (InetSocketAddress) closed.getLocalAddress();
            closed.close(); // dials to it fail: only the rule's state matters here
            List<InetSocketAddress> at = List.of(nowhere, nowhere, nowhere);
            Connections lower = new Connections(0, 3, Handshake.newKey(), 1, unused, at, 100, m -> {}, s);
            Connections higher = new Connections(2, 3, Handshake.newKey(), 1, unused, at, 100, m -> {}, s);
            // Both dial at once: each has started its own dial when the other's arrives.
            assertTrue(lower.dialMain(2));
            assertTrue(higher.dialMain(0));
            assertEquals(Handshake.LARGE, lower.role(2, Handshake.MAIN), "the higher rank's dial, at the lower: its large one");
            assertEquals(Handshake.MAIN, higher.role(0, Handshake.MAIN), "the lower rank's dial, at the higher: the main one");
            // Only one side dials: its connection is the main one, and the other side no longer dials.
            assertEquals(Handshake.MAIN, lower.role(1, Handshake.MAIN));
            assertFalse(lower.dialMain(1), "a main connection accepted is not dialled again");
            assertEquals(Handshake.LARGE, lower.role(2, Handshake.LARGE), "the higher rank's large connection");
            assertThrows(Handshake.Refused.class, () -> higher.role(0, Handshake.LARGE), "a lower rank has no large connection");
            lower.close();
            higher.close();
        }
    }

    /**
     * At p = 8, pid 0's partners in the sync's rounds are 1, 2, 4, 6 and 7: it never connects to 3.
     * When 3 dies (its connections and its listening socket closed without a goodbye, as a
     * killed JVM's), every other process's next sync throws naming it, pid 0's within 2 s.
     */
    @Test
    void aDeadProcessIsNamedAtTheNextSyncOfOneThatNeverTalkedToIt() throws Exception {
        int p = 8, victim = 3;
        AtomicLong droppedAt = new AtomicLong(), seenAt = new AtomicLong();
        boolean[] talked = new boolean[1];
        Throwable[] thrown = SparseConsensusTest.job(p, (rank, mesh) -> {
            FatalException f = SECTIONS.run(mesh, mesh.nextSection(), p, ctx -> {
                int s = ctx.pid();
                MemorySegment x = Arena.ofAuto().allocate(8);
                ctx.resizeMemoryRegister(1);
                ctx.resizeMessageQueue(1);
                ctx.sync();
                Memslot xs = ctx.registerGlobal(x);
                ctx.sync();
                ctx.put(xs, 0, (s + 1) % p, xs, 0, 8);
                ctx.sync();
                if (s == 0) talked[0] = mesh.connectedTo(victim);
                ctx.sync(); // after pid 0 looked
                if (s == victim) {
                    droppedAt.set(System.nanoTime());
                    mesh.dropConnectionsForTest();
                    Thread.sleep(3_000); // longer than the others take to name it
                    return;
                }
                try {
                    ctx.sync();
                    ctx.sync();
                } finally {
                    if (s == 0) seenAt.set(System.nanoTime());
                }
            }, Args.NONE, "exec", 1);
            if (f != null) throw f;
        });
        assertFalse(talked[0], "pid 0 held no connection to pid " + victim);
        for (int r = 0; r < p; r++) {
            if (r == victim) continue;
            int q = r;
            FatalException f = assertInstanceOf(FatalException.class, thrown[r], () -> "pid " + q + ": " + Arrays.toString(thrown));
            assertTrue(f.getMessage().contains("pid " + victim), f.getMessage());
        }
        long after = seenAt.get() - droppedAt.get();
        assertTrue(after < 2_000_000_000L, "pid 0 named it within 2 s: " + after / 1e6 + " ms");
    }
}
