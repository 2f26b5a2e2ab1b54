package org.lpf4j.boot.tcp;

import org.lpf4j.boot.RecordingLogger;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What unauthenticated connections can cost the coordinator: at most
 * {@link TcpCoordinator#MAX_HANDSHAKES} handshakes at once (more connections are closed as they are
 * accepted), each closed at its one deadline ({@link Wire#HANDSHAKE_MILLIS}) however its bytes
 * trickle in, and a job's members still join while silent connections hold every slot. A member
 * gives up at its connect timeout, whatever the coordinator does meanwhile.
 */
class TcpHandshakeLimitsTest {
    private static final int MAX_FRAME = 1 << 20;
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);

    @Test
    void aJobBootsWhileTwoHundredSilentConnectionsHoldEveryHandshakeSlot() throws Exception {
        int p = 3, silent = 200;
        byte[] key = "limits".getBytes(StandardCharsets.UTF_8);
        RecordingLogger log = new RecordingLogger();
        List<Socket> sockets = new ArrayList<>();
        try (TcpCoordinator c = new TcpCoordinator(LOOPBACK, p, key, MAX_FRAME, log)) {
            for (int i = 0; i < silent; i++) {
                Socket s = new Socket();
                sockets.add(s);
                s.connect(c.address(), 5_000);
            }
            await(() -> c.handshakesUnderWay() + c.refusedConnections() >= silent, 5_000, "every silent connection accepted");
            assertTrue(c.handshakesUnderWay() <= TcpCoordinator.MAX_HANDSHAKES, c.handshakesUnderWay() + " handshakes under way");
            assertTrue(c.refusedConnections() >= silent - TcpCoordinator.MAX_HANDSHAKES, c.refusedConnections() + " refused");
            // those turned away for want of a slot are logged once per run, not once each
            assertTrue(log.count("handshakes under way") * 10 <= c.refusedConnections(), log.toString());

            long t0 = System.nanoTime();
            List<Future<byte[][]>> members = new ArrayList<>();
            for (int r = 0; r < p; r++) {
                int rank = r;
                FutureTask<byte[][]> f = new FutureTask<>(() -> member(c.address(), key, rank, p));
                Thread.ofVirtual().name("member " + rank).start(f);
                members.add(f);
            }
            for (Future<byte[][]> f : members) {
                while (!f.isDone()) {
                    assertTrue(c.handshakesUnderWay() <= TcpCoordinator.MAX_HANDSHAKES, c.handshakesUnderWay() + " handshakes under way");
                    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(15), "the job booted within 15 s");
                    Thread.sleep(20);
                }
                byte[][] got = f.get();
                for (int q = 0; q < p; q++) assertArrayEquals(new byte[]{(byte) q, 42}, got[q]);
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            // the silent connections held the slots until their deadline at most, then the members got in
            assertTrue(millis < Wire.HANDSHAKE_MILLIS + 5_000, "booted in " + millis + " ms");
            await(c::finished, 5_000, "every member left");
            await(() -> c.handshakesUnderWay() == 0, 5_000, "no handshake left");
            assertTrue(log.count("no whole HELLO within " + Wire.HANDSHAKE_MILLIS + " ms") <= silent, log.toString());
        } finally {
            for (Socket s : sockets) s.close();
        }
    }

    /** One member: joins, publishes {rank, 42}, fences and reads every rank's value. */
    private static byte[][] member(InetSocketAddress at, byte[] key, int rank, int p) {
        try (BootSession s = TcpSession.open(new TcpSettings(at, key, rank, p, false, "127.0.0.1", 15_000, MAX_FRAME))) {
            s.put("v", new byte[]{(byte) rank, 42});
            s.commit();
            s.fence(FenceOptions.collect().timeout(Duration.ofSeconds(15)));
            byte[][] got = new byte[p][];
            for (int q = 0; q < p; q++) got[q] = s.get(q, "v");
            return got;
        }
    }

    @Test
    void aPeerThatNeverAuthenticatesIsClosedAtItsDeadlineEvenIfItTrickles() throws Exception {
        byte[] key = "limits".getBytes(StandardCharsets.UTF_8);
        RecordingLogger log = new RecordingLogger();
        AtomicBoolean stop = new AtomicBoolean();
        try (TcpCoordinator c = new TcpCoordinator(LOOPBACK, 2, key, MAX_FRAME, log);
             Socket quiet = new Socket(); Socket trickler = new Socket()) {
            long t0 = System.nanoTime();
            quiet.connect(c.address(), 5_000);
            trickler.connect(c.address(), 5_000);
            // a HELLO's header, then one payload byte every 100 ms: 8 s for the 80 bytes, each read waiting only 100 ms
            Thread dribble = Thread.ofVirtual().start(() -> {
                try {
                    OutputStream out = trickler.getOutputStream();
                    out.write(new byte[]{0, 0, 0, 81, Wire.HELLO});
                    for (int i = 0; i < 80 && !stop.get(); i++) {
                        out.flush();
                        Thread.sleep(100);
                        out.write(0);
                    }
                } catch (IOException | InterruptedException e) {
                    // closed by the coordinator, or the test ended
                }
            });
            long quietMillis = closedAfter(quiet, t0), tricklerMillis = closedAfter(trickler, t0);
            stop.set(true);
            dribble.join(5_000);
            for (long m : new long[]{quietMillis, tricklerMillis}) {
                assertTrue(m >= Wire.HANDSHAKE_MILLIS - 200 && m < Wire.HANDSHAKE_MILLIS + 3_000,
                        "closed " + m + " ms after the connect, the deadline is " + Wire.HANDSHAKE_MILLIS + " ms");
            }
            await(() -> c.handshakesUnderWay() == 0, 2_000, "no handshake left");
            assertEquals(2, c.refusedConnections(), log.toString());
            assertEquals(2, log.count("no whole HELLO within " + Wire.HANDSHAKE_MILLIS + " ms of its connection"), log.toString());
        } finally {
            stop.set(true);
        }
    }

    /** @return ms from {@code t0} until the coordinator closed {@code s} (end of stream or reset); fails after 10 s */
    private static long closedAfter(Socket s, long t0) throws IOException {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) { /* the challenge */ }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the coordinator did not close an unauthenticated connection within 10 s", e);
        } catch (IOException e) {
            // reset: closed with the peer's bytes unread
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    private static void await(BooleanSupplier condition, long millis, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("not within " + millis + " ms: " + what);
            Thread.sleep(10);
        }
    }

    /**
     * A coordinator that turns connections away (closed before the challenge, as when its slots
     * are taken) until just before the member's connect timeout, then accepts one and says
     * nothing: the member gives up at its connect timeout, not a whole read timeout later (before,
     * each read of the handshake could wait the connect timeout again: 3.6 s here).
     */
    @Test
    void aMemberGivesUpAtItsConnectTimeoutWhateverTheCoordinatorDoes() throws Exception {
        int timeout = 2_000;
        try (java.net.ServerSocket server = new java.net.ServerSocket()) {
            server.bind(LOOPBACK);
            long t0 = System.nanoTime(), silentFrom = t0 + TimeUnit.MILLISECONDS.toNanos(timeout - 400);
            List<Socket> kept = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread coordinator = Thread.ofPlatform().start(() -> {
                try {
                    while (true) {
                        Socket s = server.accept();
                        if (System.nanoTime() < silentFrom) s.close();
                        else kept.add(s);
                    }
                } catch (IOException e) {
                    // the server closed: the test ended
                }
            });
            try {
                TcpSettings settings = new TcpSettings(new InetSocketAddress("127.0.0.1", server.getLocalPort()),
                        "late".getBytes(StandardCharsets.UTF_8), 1, 2, false, "127.0.0.1", timeout, MAX_FRAME);
                org.lpf4j.spi.boot.BootException e = org.junit.jupiter.api.Assertions.assertThrows(org.lpf4j.spi.boot.BootException.class,
                        () -> TcpSession.open(settings).close());
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                assertTrue(millis < timeout + 700, "gave up after " + millis + " ms with a connect timeout of " + timeout + " ms: " + e);
                assertTrue(e.getMessage().contains("lpf.boot.tcp.connect_timeout"), e.getMessage());
                assertTrue(!kept.isEmpty(), "the coordinator accepted no connection after " + (timeout - 400) + " ms: " + e);
            } finally {
                server.close();
                coordinator.join(5_000);
                for (Socket s : kept) s.close();
            }
        }
    }
}
