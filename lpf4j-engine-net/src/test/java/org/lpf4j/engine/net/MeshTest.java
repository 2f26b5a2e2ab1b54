package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.superstep.Transport;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mesh's security and failure rules, with threads as processes over loopback: connections
 * that do not prove the job key (garbage, a wrong key, a huge length, many at once) are refused
 * and logged while the real job connects and runs; a process whose connections end without a
 * goodbye (its JVM died) fails every other process's next sync with {@link FatalException} naming
 * it within 2 s, with no partial superstep applied.
 */
@Timeout(120)
class MeshTest {
    /** Runs {@code body} as rank {@code r} of {@code p} threads, each with its own mesh; returns what each threw. */
    static Throwable[] job(int p, byte[] key, long jobId, List<String> log, Runnable whileConnecting, Body body) throws Exception {
        return job(p, key, jobId, log, whileConnecting, body, 0);
    }

    private static Throwable[] job(int p, byte[] key, long jobId, List<String> log, Runnable whileConnecting, Body body,
                                   long timeoutMillis) throws Exception {
        InetSocketAddress[] addresses = new InetSocketAddress[p];
        CyclicBarrier published = new CyclicBarrier(p + 1);
        Throwable[] thrown = new Throwable[p];
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            int rank = r;
            threads.add(Thread.ofPlatform().start(() -> {
                try (ServerSocketChannel server = ServerSocketChannel.open()
                        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64)) {
                    addresses[rank] = (InetSocketAddress) server.getLocalAddress();
                    published.await(30, TimeUnit.SECONDS);
                    published.await(30, TimeUnit.SECONDS); // the rogues have connected
                    Mesh mesh = Mesh.connect(rank, p, key, jobId, server, Arrays.asList(addresses), 20_000, 0,
                            timeoutMillis * 1_000_000L, log::add);
                    body.run(rank, mesh);
                } catch (Throwable t) {
                    thrown[rank] = t;
                }
            }));
        }
        published.await(30, TimeUnit.SECONDS);
        try {
            whileConnecting.run(addresses);
        } finally {
            published.await(30, TimeUnit.SECONDS);
        }
        for (Thread t : threads) t.join(60_000);
        return thrown;
    }

    interface Body {
        void run(int rank, Mesh mesh) throws Exception;
    }

    interface Runnable {
        void run(InetSocketAddress[] addresses) throws Exception;
    }

    private static final NetSections SECTIONS = new NetSections(LoopbackNetEngine.PROTOCOL, "meshtest", 10_000_000L);

    /** A ring of puts over the mesh: what every accepted mesh must still run. */
    private static void ring(int rank, Mesh mesh, long[] result) {
        FatalException f = SECTIONS.run(mesh, mesh.nextSection(), mesh.size(), ctx -> {
            int s = ctx.pid(), n = ctx.nprocs();
            MemorySegment x = Arena.ofAuto().allocate(8L * n);
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(n);
            ctx.sync();
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            x.setAtIndex(ValueLayout.JAVA_LONG, s, 100 + s);
            ctx.put(xs, 8L * s, (s + 1) % n, xs, 8L * s, 8);
            ctx.sync();
            result[s] = x.getAtIndex(ValueLayout.JAVA_LONG, (s - 1 + n) % n);
            ctx.deregister(xs);
        }, Args.NONE, "exec", 1);
        if (f != null) throw f;
    }

    @Test
    void connectionsThatDoNotProveTheKeyAreRefusedAndLoggedWhileTheJobRuns() throws Exception {
        byte[] key = Handshake.newKey();
        long job = ThreadLocalRandom.current().nextLong();
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        long[] result = new long[3];
        List<Socket> rogues = new ArrayList<>();
        List<java.nio.channels.SocketChannel> wrongKeys = Collections.synchronizedList(new ArrayList<>());
        Throwable[] thrown = job(3, key, job, log, addresses -> {
            for (InetSocketAddress at : addresses) {
                // Garbage.
                Socket g = new Socket(at.getAddress(), at.getPort());
                g.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(4).getBytes());
                rogues.add(g);
                // The right format with a wrong key.
                java.nio.channels.SocketChannel w = java.nio.channels.SocketChannel.open(at);
                w.socket().setSoTimeout(5_000);
                wrongKeys.add(w);
                Thread.ofVirtual().start(() -> helloWithKey(w, Handshake.newKey(), job));
                // A huge length where a frame would start, and silence after it.
                Socket h = new Socket(at.getAddress(), at.getPort());
                OutputStream o = h.getOutputStream();
                o.write(ByteBuffer.allocate(16).put(0, (byte) 0).putLong(8, Long.MAX_VALUE).array());
                rogues.add(h);
            }
            for (int i = 0; i < 20; i++) rogues.add(new Socket(addresses[0].getAddress(), addresses[0].getPort())); // many at once
        }, (rank, mesh) -> {
            try (mesh) {
                ring(rank, mesh, result);
            }
        });
        for (Socket s : rogues) s.close();
        for (java.nio.channels.SocketChannel c : wrongKeys) c.close();
        for (Throwable t : thrown) if (t != null) throw new AssertionError("a real process failed", t);
        assertEquals(List.of(102L, 100L, 101L), List.of(result[0], result[1], result[2]), "the ring ran");
        List<String> logged;
        synchronized (log) { // handshakes still under way may log while this reads
            logged = new ArrayList<>(log);
        }
        assertTrue(logged.stream().anyMatch(l -> l.contains("refused a connection") && l.contains("bad magic")), logged.toString());
        assertTrue(logged.stream().anyMatch(l -> l.contains("does not prove the job key")), logged.toString());
    }

    private static void helloWithKey(java.nio.channels.SocketChannel c, byte[] wrongKey, long job) {
        try {
            Handshake.connect(c, wrongKey, job, 1, 3, 0);
        } catch (IOException | RuntimeException e) {
            // refused, as it should be
        }
    }

    @Test
    void aProcessWhoseConnectionsEndWithoutAGoodbyeFailsTheOthersNextSyncNamingIt() throws Exception {
        byte[] key = Handshake.newKey();
        long job = ThreadLocalRandom.current().nextLong();
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Long> droppedAt = new AtomicReference<>(), seenAt = new AtomicReference<>();
        long[] partial = new long[4];
        Throwable[] thrown = job(4, key, job, log, addresses -> {}, (rank, mesh) -> {
            FatalException f = SECTIONS.run(mesh, mesh.nextSection(), 4, ctx -> {
                int s = ctx.pid();
                MemorySegment x = Arena.ofAuto().allocate(64);
                try {
                    ctx.resizeMemoryRegister(1);
                    ctx.resizeMessageQueue(8);
                    ctx.sync();
                    Memslot xs = ctx.registerGlobal(x);
                    ctx.sync();
                    if (s == 2) {
                        droppedAt.set(System.nanoTime());
                        mesh.dropConnectionsForTest(); // as a JVM killed by a signal: no goodbye, no end round
                        Thread.sleep(5_000);
                        return;
                    }
                    x.set(ValueLayout.JAVA_LONG, 0, 7);
                    ctx.put(xs, 0, (s + 1) % 4, xs, 8, 8);
                    ctx.sync();
                } catch (FatalException e) {
                    if (s == 0) seenAt.set(System.nanoTime());
                    throw e;
                } finally {
                    partial[s] = x.get(ValueLayout.JAVA_LONG, 8);
                }
            }, Args.NONE, "exec", 1);
            if (f != null) throw f;
        });
        for (int r : new int[] {0, 1, 3}) {
            FatalException f = assertInstanceOf(FatalException.class, thrown[r], () -> "pid " + r + ": " + Arrays.toString(thrown));
            assertTrue(f.getMessage().contains("pid 2"), f.getMessage());
        }
        assertNotNull(seenAt.get(), "pid 0's sync threw");
        long after = seenAt.get() - droppedAt.get();
        assertTrue(after < 2_000_000_000L, "named within 2 s: " + after / 1e6 + " ms");
        assertEquals(0, partial[3], "pid 3's put from pid 2 never came");
        assertEquals(0, partial[1], "pid 1's put from pid 0 is not applied: the superstep failed as a whole");
    }

    /**
     * A process that left in order (its goodbye read, its connection closed) is not named dead
     * when another process dies afterwards: the death notice this process passes on skips the
     * closed connection, instead of failing on it and reporting that the connection to the
     * process that left "broke".
     */
    @Test
    void aProcessThatLeftInOrderIsNotNamedDeadWhenAnotherDiesAfterIt() throws Exception {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        CyclicBarrier connected = new CyclicBarrier(3), left = new CyclicBarrier(3), byeRead = new CyclicBarrier(2);
        String[] seenBy1 = new String[2];
        Throwable[] thrown = job(3, Handshake.newKey(), ThreadLocalRandom.current().nextLong(), log, addresses -> {}, (rank, mesh) -> {
            if (rank == 1) {
                mesh.connect(0);
                mesh.connect(2);
            }
            progressUntil(mesh, () -> rank == 1 ? mesh.connectedTo(0) && mesh.connectedTo(2) : mesh.connectedTo(1), "connected");
            connected.await(30, TimeUnit.SECONDS);
            if (rank == 0) {
                mesh.close();
                left.await(30, TimeUnit.SECONDS);
                return;
            }
            left.await(30, TimeUnit.SECONDS);
            if (rank == 2) {
                byeRead.await(30, TimeUnit.SECONDS);
                mesh.dropConnectionsForTest(); // as a JVM killed by a signal
                return;
            }
            progressUntil(mesh, () -> mesh.leftInOrder(0), "pid 0's goodbye");
            byeRead.await(30, TimeUnit.SECONDS);
            progressUntil(mesh, () -> mesh.deathOf(2) != null, "pid 2's death");
            seenBy1[0] = mesh.deathOf(0);
            seenBy1[1] = mesh.deathOf(2);
            mesh.close();
        });
        assertTrue(Arrays.stream(thrown).allMatch(t -> t == null), () -> Arrays.toString(thrown));
        assertTrue(seenBy1[1].contains("pid 2"), seenBy1[1]);
        assertEquals(null, seenBy1[0], "pid 0 left in order; log: " + log);
    }

    /** Makes progress on {@code mesh} until {@code done} holds (within 20 s). */
    private static void progressUntil(Mesh mesh, java.util.function.BooleanSupplier done, String what) {
        long start = System.nanoTime();
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() - start < 20_000_000_000L, "rank " + mesh.rank() + " waited 20 s for " + what);
            mesh.progress(start, what, -1);
        }
    }

    /**
     * A large payload longer than one socket call writes ({@link Mesh#WRITE_CHUNK}) arrives whole,
     * in order with the small frames staged before and queued after it: over the lower rank's
     * shared connection (in one gathering write with what is staged) and over the higher rank's own.
     */
    @Test
    void aPayloadLongerThanOneWriteArrivesWholeBetweenTheFramesAroundIt() throws Exception {
        long length = 2 * Mesh.WRITE_CHUNK + Mesh.WRITE_CHUNK / 2 + 3;
        long[][] seen = new long[2][];
        Throwable[] thrown = job(2, Handshake.newKey(), 12, new ArrayList<>(), addresses -> {}, (rank, mesh) -> {
            try (mesh; Arena arena = Arena.ofConfined()) {
                int section = mesh.nextSection(), other = 1 - rank;
                mesh.activate(section, 2);
                MemorySegment out = arena.allocate(length), in = arena.allocate(length);
                for (long i = 0; i < length; i++) out.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + rank));
                MemorySegment before = arena.allocate(8).fill((byte) (10 + rank)), after = arena.allocate(8).fill((byte) (20 + rank));
                MemorySegment beforeIn = arena.allocate(8), afterIn = arena.allocate(8);
                int[] pending = new int[1];
                mesh.receive(Frame.COLLECTIVE, beforeIn, 0, 8, other, pending, 0);
                mesh.receive(Transport.Channel.LARGE.ordinal(), in, 0, length, other, pending, 0);
                mesh.receive(Frame.COLLECTIVE, afterIn, 0, 8, other, pending, 0);
                mesh.send(Frame.COLLECTIVE, section, before, 0, 8, other, pending, 0);
                mesh.send(Transport.Channel.LARGE.ordinal(), section, out, 0, length, other, pending, 0);
                mesh.send(Frame.COLLECTIVE, section, after, 0, 8, other, pending, 0);
                mesh.await(pending, 0, "the test's frames");
                long wrong = 0;
                for (long i = 0; i < length; i++) if (in.get(ValueLayout.JAVA_BYTE, i) != (byte) (i * 31 + other)) wrong++;
                seen[rank] = new long[] {beforeIn.get(ValueLayout.JAVA_BYTE, 7), wrong, afterIn.get(ValueLayout.JAVA_BYTE, 0)};
            }
        });
        for (Throwable t : thrown) if (t != null) throw new AssertionError("a process failed", t);
        assertEquals(List.of(11L, 0L, 21L), Arrays.stream(seen[0]).boxed().toList(), "rank 0: before, wrong bytes, after");
        assertEquals(List.of(10L, 0L, 20L), Arrays.stream(seen[1]).boxed().toList(), "rank 1: before, wrong bytes, after");
    }

    /**
     * Of a pair's two connections, the one the higher rank dialled carries its large payloads and
     * nothing else: any other frame there is a broken peer, dropped and named, not a frame taken.
     */
    @Test
    void aFrameOfAnotherChannelOnTheLargePayloadsConnectionIsRefused() throws Exception {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Throwable[] thrown = job(2, Handshake.newKey(), 11, log, addresses -> {}, (rank, mesh) -> {
            try (mesh) {
                mesh.activate(mesh.nextSection(), 2);
                if (rank == 1) {
                    mesh.sendOnLargeConnectionForTest(0, Frame.COLLECTIVE);
                    Thread.sleep(1_000);
                    return;
                }
                int[] pending = new int[1];
                mesh.receive(Frame.COLLECTIVE, Arena.ofAuto().allocate(8), 0, 8, 1, pending, 0);
                try {
                    mesh.await(pending, 0, "a collective");
                } catch (Transport.Stopped e) {
                    seen.set(e);
                }
            }
        });
        for (Throwable t : thrown) if (t != null) throw new AssertionError("a process failed otherwise", t);
        assertNotNull(seen.get(), "rank 0's wait ended with the broken peer named");
        assertTrue(seen.get().getMessage().contains("pid 1") && seen.get().getMessage().contains("large payloads"),
                seen.get().getMessage());
        synchronized (log) {
            assertTrue(log.stream().anyMatch(l -> l.contains("large payloads")), log.toString());
        }
    }

    /** A frozen JVM keeps its connections open: the sync deadline names it as stopped instead. */
    @Test
    void aProcessThatStopsSyncingIsNamedByTheDeadline() throws Exception {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        Throwable[] thrown = job(3, Handshake.newKey(), 7, log, addresses -> {}, (rank, mesh) -> {
            try (mesh) {
                FatalException f = SECTIONS.run(mesh, mesh.nextSection(), 3, ctx -> {
                    ctx.sync();
                    if (ctx.pid() == 1) Thread.sleep(4_000); // frozen, as under kill -STOP
                    ctx.sync();
                }, Args.NONE, "exec", 1);
                if (f != null) throw f;
            }
        }, 1_000);
        for (int r : new int[] {0, 2}) {
            FatalException f = assertInstanceOf(FatalException.class, thrown[r], () -> "pid " + r + ": " + Arrays.toString(thrown));
            assertTrue(f.getMessage().contains("pid 1") && f.getMessage().contains("stopped"), f.getMessage());
        }
    }
    /**
     * A process that stops reading while this one sends it a large payload over TCP: the
     * deadline names it, and this process's end (its goodbyes, the mesh's close) does not wait
     * for it to read again.
     */
    @Test
    void theEndDoesNotWaitForAPeerThatStopsReading() throws Exception {
        String was = System.getProperty(NetParameters.SHM.key());
        System.setProperty(NetParameters.SHM.key(), "false"); // TCP: the socket's buffers fill up
        long[] closeNanos = new long[1];
        CyclicBarrier closed = new CyclicBarrier(2);
        try {
            Throwable[] thrown = job(2, Handshake.newKey(), 8, new ArrayList<>(), addresses -> {}, (rank, mesh) -> {
                try (Arena arena = Arena.ofShared()) {
                    int section = mesh.nextSection();
                    mesh.activate(section, 2);
                    if (rank == 1) { // frozen, as under kill -STOP: it reads nothing until pid 0 has ended
                        closed.await(30, TimeUnit.SECONDS);
                        mesh.close();
                        return;
                    }
                    long length = 64L << 20;
                    int[] pending = new int[1];
                    mesh.send(Transport.Channel.LARGE.ordinal(), section, arena.allocate(length), 0, length, 1, pending, 0);
                    try {
                        mesh.await(pending, 0, "the test's payload");
                    } finally {
                        long start = System.nanoTime();
                        mesh.close();
                        closeNanos[0] = System.nanoTime() - start;
                        closed.await(30, TimeUnit.SECONDS);
                    }
                }
            }, 1_000);
            assertInstanceOf(Transport.Stopped.class, thrown[0], () -> Arrays.toString(thrown));
            assertTrue(thrown[0].getMessage().contains("pid 1"), thrown[0].getMessage());
            assertTrue(closeNanos[0] < 3_000_000_000L, "pid 0's close took " + closeNanos[0] / 1_000_000 + " ms");
        } finally {
            if (was == null) System.clearProperty(NetParameters.SHM.key()); else System.setProperty(NetParameters.SHM.key(), was);
        }
    }

    /**
     * An accepted main connection that fails after its handshake (its locality exchange) is
     * withdrawn; a process that meanwhile held frames for it, expecting the connection from its
     * peer, dials the pair itself: the frames arrive, no wait hangs.
     */
    @Test
    void framesHeldForAMainConnectionThatWasWithdrawnAreSentOverADialOfTheirOwn() throws Exception {
        byte[] key = Handshake.newKey();
        long job = 13;
        java.util.concurrent.CountDownLatch handshook = new java.util.concurrent.CountDownLatch(1), wanted =
                new java.util.concurrent.CountDownLatch(1);
        AtomicReference<Throwable> impostor = new AtomicReference<>();
        long[] waitedNanos = new long[1];
        Throwable[] thrown = job(2, key, job, new ArrayList<>(), addresses -> Thread.ofVirtual().start(() -> {
            // Rank 1's main dial as far as its handshake, then gone before the locality exchange.
            try (java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open(addresses[0])) {
                Handshake.connect(c, key, job, 1, 2, 0, Handshake.MAIN);
                handshook.countDown();
                wanted.await(30, TimeUnit.SECONDS);
            } catch (Throwable t) {
                impostor.set(t);
                handshook.countDown();
            }
        }), (rank, mesh) -> {
            try (mesh) {
                int section = mesh.nextSection();
                mesh.activate(section, 2);
                int[] pending = new int[1];
                if (rank == 1) {
                    mesh.receive(Frame.COLLECTIVE, MemorySegment.NULL, 0, 0, 0, pending, 0);
                    mesh.await(pending, 0, "rank 0's frame");
                    return;
                }
                assertTrue(handshook.await(30, TimeUnit.SECONDS), "the impostor's handshake");
                long start = System.nanoTime();
                mesh.send(Frame.COLLECTIVE, section, MemorySegment.NULL, 0, 0, 1, pending, 0); // held: rank 1's connection is expected
                wanted.countDown();
                mesh.await(pending, 0, "the frame to rank 1");
                waitedNanos[0] = System.nanoTime() - start;
            }
        }, 8_000);
        assertEquals(null, impostor.get(), "the impostor's handshake failed");
        for (Throwable t : thrown) if (t != null) throw new AssertionError("a process failed: " + Arrays.toString(thrown), t);
        assertTrue(waitedNanos[0] < 6_000_000_000L, "rank 0 waited " + waitedNanos[0] / 1_000_000 + " ms");
    }
}
