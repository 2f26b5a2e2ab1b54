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
     * A handshake's read waits a quarter of the set-up time, at most 60 s: 10 s (the old cap) was
     * too short for 256 processes starting in 8 JVMs on 2 cores, whose start failed on "Read timed out".
     */
    @Test
    void aHandshakeWaitsAQuarterOfTheSetUpTimeAtMostAMinute() {
        assertEquals(15_000, Mesh.handshakeMillis(60_000), "lpf.engine.net.setupMillis' default");
        assertEquals(60_000, Mesh.handshakeMillis(1_800_000), "the scale tests' setup time");
        assertEquals(1_000, Mesh.handshakeMillis(4_000));
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
     * At most {@link Mesh#MAX_DIALS} of a process's dials are under way at once: a superstep that
     * first talks to 20 peers whose handshakes stall holds 8 connections to them, not 20 (at
     * p = 256, 255 dials at every process at once overran the acceptors). Once the mesh closes,
     * the waiting dials give up without connecting.
     */
    @Test
    void atMostEightDialsAreUnderWayAtOnce() throws Exception {
        int peers = 20;
        AtomicInteger accepted = new AtomicInteger();
        List<Socket> held = new CopyOnWriteArrayList<>();
        List<ServerSocket> silent = new ArrayList<>();
        List<Thread> acceptors = new ArrayList<>();
        List<InetSocketAddress> all = new ArrayList<>();
        try (ServerSocketChannel mine = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Selector wake = Selector.open()) {
            for (int q = 0; q < peers; q++) {
                ServerSocket s = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
                silent.add(s);
                all.add((InetSocketAddress) s.getLocalSocketAddress());
                acceptors.add(Thread.ofVirtual().start(() -> { // takes the HELLO, then stalls
                    try {
                        Socket c = s.accept();
                        held.add(c);
                        accepted.incrementAndGet();
                        c.getOutputStream().write(ByteBuffer.allocate(Handshake.CHALLENGE_BYTES).putInt(Handshake.MAGIC)
                                .putInt(Handshake.VERSION).array());
                        new DataInputStream(c.getInputStream()).readFully(new byte[Handshake.HELLO_BYTES]);
                    } catch (Exception e) {
                        // the test closed the socket
                    }
                }));
            }
            all.add((InetSocketAddress) mine.getLocalAddress());
            try (Connections c = connections(peers, peers + 1, mine, all, 40_000, wake)) {
                for (int q = 0; q < peers; q++) assertTrue(c.dialMain(q));
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (accepted.get() < Mesh.MAX_DIALS && System.nanoTime() < deadline) Thread.sleep(10);
                assertEquals(Mesh.MAX_DIALS, accepted.get(), "the first dials connected");
                Thread.sleep(500); // no slot frees: every handshake held waits 10 s for its WELCOME
                assertEquals(Mesh.MAX_DIALS, accepted.get(), "the other dials wait for a slot");
            }
            for (Socket s : held) s.close(); // the held handshakes fail and free their slots; the mesh is closed
            Thread.sleep(500);
            assertEquals(Mesh.MAX_DIALS, accepted.get(), "no dial began after the mesh closed");
        } finally {
            for (ServerSocket s : silent) s.close();
            for (Thread t : acceptors) t.join(5000);
        }
    }
}
