package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link Connections} keeps one connection per role when a handshake breaks half-way: an
 * acceptor whose WELCOME could not be written withdraws the role it chose (the connector's next
 * dial gets it again, not the large role beside a main connection that never came), and a
 * connector whose WELCOME did not come in time after its HELLO went out does not dial again (the
 * acceptor may hold the connection already: a second one of the same role would be dropped and
 * the first broken).
 */
@Timeout(60)
class ConnectionsTest {
    private static Connections connections(int rank, int size, ServerSocketChannel server, List<InetSocketAddress> all,
                                           long dialMillis, Selector wake) {
        return new Connections(rank, size, Handshake.newKey(), 42L, server, all, dialMillis, s -> {}, wake);
    }

    @Test
    void aWithdrawnMainRoleIsGivenAgainToTheNextDial() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Selector wake = Selector.open();
             Connections c = connections(1, 3, server, List.of(), 1000, wake)) {
            assertEquals(Handshake.MAIN, c.role(2, Handshake.MAIN), "the higher rank's first dial, nothing dialled here");
            c.withdraw(2, Handshake.MAIN);
            assertEquals(Handshake.MAIN, c.role(2, Handshake.MAIN), "after the withdrawal, its next dial is the main connection again");
            assertEquals(Handshake.LARGE, c.role(2, Handshake.MAIN), "once settled, another dial of it can only be its large one");
            assertEquals(Handshake.MAIN, c.role(0, Handshake.MAIN), "a lower rank's dial is always the main connection");
        }
    }

    /**
     * A handshake's read waits a quarter of the set-up time: 10 s (an old cap) was too short for
     * 256 processes starting in 8 JVMs on 2 cores, whose start failed on "Read timed out", and
     * 60 s (the next) for their first superstep that connected every pair.
     */
    @Test
    void aHandshakeWaitsAQuarterOfTheSetUpTime() {
        assertEquals(15_000, Mesh.handshakeMillis(60_000), "lpf.engine.net.setupMillis' default");
        assertEquals(450_000, Mesh.handshakeMillis(1_800_000), "the scale tests' setup time");
        assertEquals(1_000, Mesh.handshakeMillis(4_000));
        assertEquals(Integer.MAX_VALUE, Mesh.handshakeMillis(Long.MAX_VALUE), "no overflow");
    }

    @Test
    void aDialWhoseWelcomeDoesNotComeIsNotRepeated() throws Exception {
        AtomicInteger accepted = new AtomicInteger();
        List<Socket> held = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             ServerSocketChannel mine = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Selector wake = Selector.open()) {
            // Rank 0 answers the CHALLENGE, reads the HELLO and then says nothing, as an acceptor that took the connection and stalled.
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        Socket s = silent.accept();
                        accepted.incrementAndGet();
                        held.add(s);
                        ByteBuffer challenge = ByteBuffer.allocate(Handshake.CHALLENGE_BYTES).putInt(Handshake.MAGIC).putInt(Handshake.VERSION);
                        s.getOutputStream().write(challenge.array());
                        new DataInputStream(s.getInputStream()).readFully(new byte[Handshake.HELLO_BYTES]);
                    }
                } catch (Exception e) {
                    // the test closed the socket
                }
            });
            List<InetSocketAddress> all = new ArrayList<>(List.of((InetSocketAddress) silent.getLocalSocketAddress(),
                    (InetSocketAddress) mine.getLocalAddress()));
            long t0 = System.nanoTime();
            Connections.Ready r;
            try (Connections c = connections(1, 2, mine, all, 4000, wake)) {
                assertTrue(c.dialMain(0));
                c.launchDials();
                while ((r = c.poll()) == null) wake.select(100);
            }
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertNotNull(r.failure(), "the dial failed");
            assertNull(r.channel());
            assertTrue(millis < 3000, "it gave up after one read timeout (1 s), not at the dial's deadline: " + millis + " ms");
            assertEquals(1, accepted.get(), "one connection only: " + r.failure());
            for (Socket s : held) s.close();
            silent.close();
            acceptor.join(5000);
        }
    }
    /**
     * At most {@link Mesh#MAX_DIALS} of a process's dials are under way at once, the nearest ranks
     * above it first: rank 10 of 21, dialling its 20 peers whose handshakes stall, holds
     * connections to ranks 11 … 18 only, not to all 20 (at p = 256, 255 dials at every process at
     * once, all to rank 0 first, overran the first ranks). Once the mesh closes, the waiting dials
     * give up without connecting.
     */
    @Test
    void atMostEightDialsAreUnderWayAtOnceTheNearestRanksAboveFirst() throws Exception {
        int size = 21, me = 10;
        List<Integer> accepted = new CopyOnWriteArrayList<>();
        List<Socket> held = new CopyOnWriteArrayList<>();
        List<ServerSocket> silent = new ArrayList<>();
        List<Thread> acceptors = new ArrayList<>();
        List<InetSocketAddress> all = new ArrayList<>();
        try (ServerSocketChannel mine = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Selector wake = Selector.open()) {
            for (int q = 0; q < size; q++) {
                if (q == me) {
                    all.add((InetSocketAddress) mine.getLocalAddress());
                    continue;
                }
                int peer = q;
                ServerSocket s = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
                silent.add(s);
                all.add((InetSocketAddress) s.getLocalSocketAddress());
                acceptors.add(Thread.ofVirtual().start(() -> { // takes the HELLO, then stalls
                    try {
                        Socket c = s.accept();
                        held.add(c);
                        accepted.add(peer);
                        c.getOutputStream().write(ByteBuffer.allocate(Handshake.CHALLENGE_BYTES).putInt(Handshake.MAGIC)
                                .putInt(Handshake.VERSION).array());
                        new DataInputStream(c.getInputStream()).readFully(new byte[Handshake.HELLO_BYTES]);
                    } catch (Exception e) {
                        // the test closed the socket
                    }
                }));
            }
            try (Connections c = connections(me, size, mine, all, 40_000, wake)) {
                for (int q = 0; q < size; q++) if (q != me) assertTrue(c.dialMain(q)); // in rank order, as a superstep asks
                c.launchDials();
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (accepted.size() < Mesh.MAX_DIALS && System.nanoTime() < deadline) Thread.sleep(10);
                Thread.sleep(500); // no slot frees: every handshake held waits 10 s for its WELCOME
                assertEquals(List.of(11, 12, 13, 14, 15, 16, 17, 18), accepted.stream().sorted().toList(),
                        "the first dials went to the nearest ranks above, and the others wait for a slot");
            }
            for (Socket s : held) s.close(); // the held handshakes fail and free their slots; the mesh is closed
            Thread.sleep(500);
            assertEquals(Mesh.MAX_DIALS, accepted.size(), "no dial began after the mesh closed");
        } finally {
            for (ServerSocket s : silent) s.close();
            for (Thread t : acceptors) t.join(5000);
        }
    }

    /**
     * Every accepted connection gets its CHALLENGE at once and takes one of the
     * {@link Mesh#MAX_HANDSHAKES} slots only when its HELLO has come: more silent connections than
     * there are slots (a rogue, or peers that are slow to answer) do not keep the job's own
     * handshake waiting (it used to wait behind them, each holding its slot for a quarter of the
     * set-up time, and its dial timed out). None is refused while they are fewer than the
     * places for waiting ({@link Mesh#MAX_WAITING_HANDSHAKES}).
     */
    @Test
    void silentConnectionsHoldNoHandshakeSlot() throws Exception {
        int n = Mesh.MAX_HANDSHAKES + 16;
        byte[] key = Handshake.newKey();
        List<Socket> sockets = new ArrayList<>();
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Selector wake = Selector.open()) {
            InetSocketAddress at = (InetSocketAddress) server.getLocalAddress();
            try (Connections c = new Connections(0, 2, key, 42L, server, List.of(at, at), 40_000, s -> {}, wake)) {
                c.start();
                for (int i = 0; i < n; i++) sockets.add(new Socket(at.getAddress(), at.getPort()));
                // Well within the 10 s a silent connection is given for its HELLO (a quarter of 40 s).
                long deadline = System.nanoTime() + 4_000_000_000L;
                while (challenged(sockets).size() < n && System.nanoTime() < deadline) Thread.sleep(10);
                assertEquals(n, challenged(sockets).size(), "a CHALLENGE for every silent connection within 4 s");
                try (java.nio.channels.SocketChannel real = java.nio.channels.SocketChannel.open(at)) {
                    real.socket().setSoTimeout(5_000);
                    long start = System.nanoTime();
                    assertEquals(Handshake.MAIN, Handshake.connect(real, key, 42L, 1, 2, 0, Handshake.MAIN), "the role");
                    long took = System.nanoTime() - start;
                    assertTrue(took < 3_000_000_000L, "the job's handshake took " + took / 1_000_000 + " ms");
                }
            }
        } finally {
            for (Socket s : sockets) s.close();
        }
    }

    /** A HELLO that trickles in, a byte at a time, each well within the read timeout, still has one deadline in all. */
    @Test
    void aTricklingHelloMeetsOneDeadline() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             java.nio.channels.SocketChannel client = java.nio.channels.SocketChannel.open(server.getLocalAddress());
             java.nio.channels.SocketChannel accepted = server.accept()) {
            Connections.tune(accepted, 5_000);
            Thread trickle = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        client.write(ByteBuffer.wrap(new byte[] {(byte) i}));
                        Thread.sleep(100);
                    }
                } catch (Exception e) {
                    // the acceptor gave up and the test closes the channel
                }
            });
            long start = System.nanoTime();
            assertThrows(java.net.SocketTimeoutException.class, () -> Handshake.readHello(accepted, start + 1_000_000_000L));
            long took = System.nanoTime() - start;
            assertTrue(took >= 900_000_000L && took < 2_500_000_000L, "gave up after " + took / 1_000_000 + " ms");
            trickle.interrupt();
        }
    }

    /** @return the open sockets whose CHALLENGE has arrived */
    private static List<Socket> challenged(List<Socket> sockets) throws Exception {
        List<Socket> got = new ArrayList<>();
        for (Socket s : sockets) if (!s.isClosed() && s.getInputStream().available() >= Handshake.CHALLENGE_BYTES) got.add(s);
        return got;
    }
}
