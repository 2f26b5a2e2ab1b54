package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.boot.tcp.TcpCoordinator;
import org.lpf4j.boot.tcp.TcpSession;
import org.lpf4j.boot.tcp.TcpSettings;
import org.lpf4j.spi.boot.BootSession;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The net engine's start-up costs O(log p) rounds and a constant number of steps per process at
 * the tcp boot's host (issue 41), counted, not timed: p = 16 processes as threads, each with its
 * own tcp boot session and mesh over loopback, start as {@code NetRuntime} does (the boot's one
 * fence, the boot left, the barrier). The boot's coordinator handles exactly three frames per
 * process (its commit, its fence, its goodbye: no lookups, no second fence), and every process,
 * rank 0 too, dials at most ⌈log2 p⌉ connections and holds at most 2⌈log2 p⌉. And no process makes
 * progress after its start until all have started: a barrier frame still staged when a process's
 * start ends would leave its partner waiting.
 */
@Timeout(120)
class StartupCountsTest {
    @Test
    void startingCostsThreeBootFramesPerProcessAndLogPConnections() throws Exception {
        int p = 16, log = 4;
        byte[] key = Handshake.newKey();
        int[] dialled = new int[p], peers = new int[p];
        Throwable[] thrown = new Throwable[p];
        CountDownLatch started = new CountDownLatch(p);
        String agreement = Rendezvous.agreement(NetParameters.PROTOCOL.resolve());
        try (TcpCoordinator boot = new TcpCoordinator(new InetSocketAddress("127.0.0.1", 0), p, key, 1 << 20, System.getLogger("test"))) {
            Thread[] threads = new Thread[p];
            for (int r = 0; r < p; r++) {
                int rank = r;
                threads[r] = Thread.ofPlatform().start(() -> {
                    try {
                        Mesh mesh = StartupCountsTest.meshOverTcpBoot(boot, key, rank, p, agreement);
                        try (mesh) {
                            Rendezvous.join(mesh);
                            started.countDown();
                            assertTrue(started.await(60, TimeUnit.SECONDS), "every process started");
                            dialled[rank] = mesh.connectionsDialled();
                            peers[rank] = mesh.peersConnected();
                        }
                    } catch (Throwable t) {
                        thrown[rank] = t;
                    }
                });
            }
            for (Thread t : threads) t.join(100_000);
            for (Throwable t : thrown) if (t != null) throw new AssertionError("a process failed", t);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!boot.finished() && System.nanoTime() < deadline) Thread.onSpinWait(); // the goodbyes in flight
            assertEquals(3L * p, boot.framesReceived(), "frames the boot's host handled: a commit, a fence and a goodbye per process");
        }
        String counts = "dialled " + Arrays.toString(dialled) + ", peers " + Arrays.toString(peers);
        for (int r = 0; r < p; r++) {
            assertTrue(dialled[r] <= log, "rank " + r + " dialled more than log2 p: " + counts);
            assertTrue(peers[r] <= 2 * log, "rank " + r + " is connected to more than 2 log2 p: " + counts);
        }
        System.out.println("StartupCountsTest p=" + p + ": " + counts);
    }

    /**
     * Starts rank {@code rank} as {@code NetRuntime} does, with a tcp boot session of its own: the
     * boot's fence ({@link Rendezvous#exchange}), then the boot left. @return its mesh, not joined yet
     */
    static Mesh meshOverTcpBoot(TcpCoordinator boot, byte[] key, int rank, int p, String agreement) throws Exception {
        try (BootSession s = TcpSession.open(new TcpSettings(boot.address(), key, rank, p, false, "127.0.0.1", 30_000, 1 << 20))) {
            return Rendezvous.exchange(s, agreement, InetAddress.getLoopbackAddress(), null);
        }
    }
}
