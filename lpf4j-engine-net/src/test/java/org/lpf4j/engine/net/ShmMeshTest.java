package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.spi.kit.WireCounts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Meshes of threads of this JVM (each a process with its own mesh, as in {@link MeshTest}): each
 * connection, as it is made on first use, proves that its peer shares the host and then carries
 * its frames through shared-memory rings, the higher rank's large connection too, with payloads
 * three times a ring's size streaming through in pieces, both ways at once, between small frames;
 * nothing is left in the job's directory. As the ranks share this JVM their rings are in its memory
 * and no file, nor the job's directory, is ever made; every connection counts as in-JVM. With {@code lpf.engine.net.shm=false} the same goes over
 * TCP. And the exchange alone ({@link LocalPeers}) over a pair of sockets: two sides that see the
 * same file get rings of the connection's role; two that do not (the same host identity, but
 * another directory, as containers of one host with their own {@code /dev/shm}) stay on TCP.
 */
@Timeout(120)
class ShmMeshTest {
    private static final NetSections SECTIONS = new NetSections(LoopbackNetEngine.PROTOCOL, "shmmeshtest", 10_000_000L);

    private static void exchange(boolean shm) throws Exception {
        int p = 3;
        long big = 3 * LocalPeers.capacity(NetParameters.SHM_BYTES.get());
        int[] linkedPeers = new int[p], linked = new int[p], open = new int[p];
        int[][] paths = new int[p][WireCounts.PATHS];
        long[] mismatches = new long[p];
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        String was = System.getProperty(NetParameters.SHM.key());
        System.setProperty(NetParameters.SHM.key(), Boolean.toString(shm));
        byte[] key = Handshake.newKey();
        long jobId = ThreadLocalRandom.current().nextLong();
        Path dir = LocalPeers.at(Path.of("/dev/shm"), LocalPeers.secret(key, jobId), 0, 64, List.of(), s -> {}).directory();
        Throwable[] thrown;
        WatchService watch = dir.getFileSystem().newWatchService();
        dir.getParent().register(watch, StandardWatchEventKinds.ENTRY_CREATE);
        try (watch) {
            thrown = MeshTest.job(p, key, jobId, log, a -> {}, (rank, mesh) -> {
                FatalException f = SECTIONS.run(mesh, mesh.nextSection(), p, ctx -> {
                    int s = ctx.pid(), n = ctx.nprocs();
                    MemorySegment x = Arena.ofAuto().allocate(2 * big);
                    for (long i = 0; i < big / 8; i++) x.setAtIndex(ValueLayout.JAVA_LONG, i, i * 31 + s);
                    ctx.resizeMemoryRegister(1);
                    ctx.resizeMessageQueue(2 * n);
                    ctx.sync();
                    Memslot xs = ctx.registerGlobal(x);
                    ctx.sync();
                    for (int round = 0; round < 3; round++) {
                        // Every process sends and receives at once; rank 2's payload to rank 0 takes its large connection.
                        ctx.put(xs, 0, (s + 1) % n, xs, big, big);
                        ctx.put(xs, 8, (s + 2) % n, xs, big - 16, 8);
                        ctx.sync();
                        int from = (s - 1 + n) % n;
                        long bad = 0;
                        for (long i = 0; i < big / 8 - 2; i++) {
                            if (x.getAtIndex(ValueLayout.JAVA_LONG, big / 8 + i) != i * 31 + from) bad++;
                        }
                        mismatches[s] += bad;
                        ctx.sync();
                    }
                    ctx.deregister(xs);
                    // Counted before the section ends: once a process has ended it, it may close its
                    // connections while another still reads them (and then closes its end).
                    linkedPeers[s] = mesh.linkedPeers();
                    linked[s] = mesh.linkedConnections();
                    open[s] = mesh.openConnections();
                    for (int path = 0; path < WireCounts.PATHS; path++) paths[s][path] = mesh.openConnections(path);
                }, Args.NONE, "exec", 1);
                mesh.close();
                if (f != null) throw f;
            });
            // The ranks share this JVM: their rings are in its memory, and no file (nor the job's directory) is ever made.
            // A file made and removed after the job: once its event is seen, every earlier one is (inotify keeps their order).
            Path sentinel = Files.createTempFile(dir.getParent(), "lpf4j-watch-", "");
            Files.delete(sentinel);
            for (boolean seen = false; !seen; ) {
                WatchKey k = watch.poll(10, TimeUnit.SECONDS);
                assertNotNull(k, "no event of " + sentinel);
                for (WatchEvent<?> e : k.pollEvents()) {
                    assertNotEquals(dir.getFileName(), e.context(), "the job's directory was made");
                    seen |= sentinel.getFileName().equals(e.context());
                }
                k.reset();
            }
        } finally {
            if (was == null) System.clearProperty(NetParameters.SHM.key()); else System.setProperty(NetParameters.SHM.key(), was);
        }
        for (Throwable t : thrown) if (t != null) throw new AssertionError(Arrays.toString(thrown), t);
        for (int r = 0; r < p; r++) {
            int[] want = new int[WireCounts.PATHS];
            want[shm ? WireCounts.IN_JVM : WireCounts.TCP] = open[r];
            assertArrayEquals(want, paths[r], "rank " + r + "'s connections by path (in-JVM, shared memory, TCP)");
        }
        int expect = shm ? 2 : 0;
        assertEquals(List.of(expect, expect, expect), Arrays.stream(linkedPeers).boxed().toList(), log.toString());
        assertEquals(List.of(0L, 0L, 0L), Arrays.stream(mismatches).boxed().toList());
        if (shm) {
            assertEquals(Arrays.stream(open).boxed().toList(), Arrays.stream(linked).boxed().toList(), "every connection on rings");
            assertTrue(linked[2] >= 3, "rank 2's large connection to rank 0 is on rings too: " + linked[2]);
        } else {
            assertEquals(List.of(0, 0, 0), Arrays.stream(linked).boxed().toList());
        }
        assertNull(log.stream().filter(l -> l.contains("uses TCP")).findFirst().orElse(null));
        assertFalse(Files.exists(dir), "the job's directory is left: " + dir);
    }

    @Test
    void payloadsLargerThanTheRingsStreamThroughSharedMemoryOnEveryConnectionAndNothingIsLeft() throws Exception {
        exchange(true);
    }

    @Test
    void withSharedMemoryOffTheSameGoesOverTcp() throws Exception {
        exchange(false);
    }

    /** Runs the exchange of one connection of {@code role} between a dialler (rank 0) and an acceptor (rank 1). @return their links */
    private static ShmLink[] prove(LocalPeers dialler, LocalPeers acceptor, int role) throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel a = SocketChannel.open(server.getLocalAddress());
             SocketChannel b = server.accept()) {
            a.socket().setSoTimeout(10_000);
            b.socket().setSoTimeout(10_000);
            CompletableFuture<ShmLink> dialled = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    dialled.complete(dialler.link(a, 1, role, true));
                } catch (Throwable t) {
                    dialled.completeExceptionally(t);
                }
            });
            ShmLink accepted = acceptor.link(b, 0, role, false);
            return new ShmLink[] {dialled.get(20, TimeUnit.SECONDS), accepted};
        }
    }

    /** 64 bytes of {@code value} go through the main connection's rings both ways and the large connection's one way. */
    private static void assertCarries(ShmLink[] main, ShmLink[] large, byte value) {
        MemorySegment bytes = Arena.ofAuto().allocate(64), got = Arena.ofAuto().allocate(64);
        bytes.fill(value);
        assertEquals(64, main[0].write(bytes, 0, 64, null, 0, 0));
        assertEquals(64, main[1].read(got, 0, 64));
        assertEquals(-1, bytes.mismatch(got));
        assertEquals(64, main[1].write(bytes, 0, 64, null, 0, 0));
        assertEquals(64, main[0].read(got, 0, 64));
        assertEquals(64, large[0].write(bytes, 0, 64, null, 0, 0));
        assertEquals(64, large[1].read(got, 0, 64));
    }

    /**
     * A pair's shared memory is {@code lpf.engine.net.shmBytes} up to 64 processes on a host with the defaults,
     * and shrinks beyond so that a process's pairs together stay within
     * {@code lpf.engine.net.shmProcessBytes} (p = 256 threads of 8 JVMs zeroed 4 MiB rings for every
     * pair of a JVM: about 1 GiB each), never below 16 KiB.
     */
    @Test
    void aProcessesPairsTogetherStayWithinItsShare() {
        long pair = NetParameters.SHM_BYTES.get(), process = NetParameters.SHM_PROCESS_BYTES.get();
        for (int p : new int[]{2, 3, 8, 64}) assertEquals(pair, LocalPeers.pairBytes(pair, process, p), "p = " + p);
        assertEquals(process / 255, LocalPeers.pairBytes(pair, process, 256));
        assertTrue(255 * LocalPeers.pairBytes(pair, process, 256) <= process);
        assertEquals(16 << 10, LocalPeers.pairBytes(pair, 1 << 20, 1 << 20), "at least 16 KiB");
        assertEquals(pair, LocalPeers.pairBytes(pair, process, 1), "one process: no peer");
        assertTrue(LocalPeers.capacity(LocalPeers.pairBytes(pair, process, 256)) >= 64 << 10, "rings of at least 64 KiB at p = 256");
    }

    /**
     * A host's processes together take at most a quarter of the shared-memory file system: each
     * gives its pairs at most half of it over their number (256 processes at 256 MiB each would
     * need 32 GiB, more than a tmpfs of half a 24 GiB machine holds, and a touched page beyond a
     * tmpfs's size kills the JVM with SIGBUS).
     */
    @Test
    void aHostsProcessesTogetherStayWithinItsSharedMemoryFileSystem() {
        long process = NetParameters.SHM_PROCESS_BYTES.get(), tmpfs = 12L << 30;
        assertEquals(process, LocalPeers.processBytes(process, tmpfs, 8), "a few processes: the parameter");
        assertEquals(tmpfs / 2 / 256, LocalPeers.processBytes(process, tmpfs, 256), "256 processes: half the file system over them");
        long pair = LocalPeers.pairBytes(NetParameters.SHM_BYTES.get(), LocalPeers.processBytes(process, tmpfs, 256), 256);
        assertTrue(256L * 255 / 2 * pair <= tmpfs / 4, "every pair's file of the host together: " + 256L * 255 / 2 * pair);
        assertEquals(process, LocalPeers.processBytes(process, Long.MAX_VALUE, 1 << 20), "a file system that gives no size bounds nothing");
        assertTrue(LocalPeers.storeBytes(Path.of("/dev/shm")) > 0);
    }

    /** Only peers whose boot address is this host's count, so that rings on a host of a spread job are sized by that host's processes. */
    @Test
    void theProcessesOfThisHostAreThoseWithOneOfItsAddresses() throws Exception {
        InetAddress here = InetAddress.getLoopbackAddress(), elsewhere = InetAddress.getByName("192.0.2.1"); // TEST-NET-1: no host's
        List<InetSocketAddress> spread = List.of(new InetSocketAddress(here, 1), new InetSocketAddress(elsewhere, 2),
                new InetSocketAddress(here, 3), new InetSocketAddress(elsewhere, 4), new InetSocketAddress(here, 5));
        assertEquals(3, Mesh.localProcesses(0, spread));
        assertEquals(3, Mesh.localProcesses(4, spread), "every process of this host counts the same");
        assertEquals(1, Mesh.localProcesses(0, List.of(new InetSocketAddress(elsewhere, 1))), "this process at least");
    }

    /**
     * A shared-memory file system too full for a pair's rings: the pair stays on TCP, saying so,
     * instead of mapping a file whose pages cannot be had (a ring's first write of one was a
     * SIGBUS, which the JDK turns into an InternalError at some later access). A tmpfs of 1 MiB of
     * its own, 900 KiB taken; mounting it needs root (CI runs as root).
     */
    @Test
    void aSharedMemoryFileSystemTooFullForTheRingsLeavesThePairOnTcp(@TempDir Path mountPoint) throws Exception {
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "lpf4j-test-full", mountPoint.toString())
                .redirectErrorStream(true).start();
        String said = new String(mount.getInputStream().readAllBytes());
        org.lpf4j.testkit.Needs.that(mount.waitFor() == 0, () -> "a tmpfs of its own (mount as root): " + said.strip());
        try {
            Files.write(mountPoint.resolve("others"), new byte[900 << 10]);
            List<InetSocketAddress> loopback = List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 2));
            List<String> log = Collections.synchronizedList(new ArrayList<>());
            byte[] secret = LocalPeers.secret(Handshake.newKey(), 11);
            long capacity = 64 << 10; // a main connection's file: two rings of 64 KiB and more, over the 124 KiB left
            assertTrue(LocalPeers.fileBytes(capacity, 2) > 124 << 10);
            LocalPeers zero = LocalPeers.at(mountPoint, secret, 0, capacity, loopback, log::add);
            LocalPeers one = LocalPeers.at(mountPoint, secret, 1, capacity, loopback, log::add);
            ShmLink[] main = prove(zero, one, Handshake.MAIN);
            assertNull(main[0], "the dialler's side is on TCP");
            assertNull(main[1], "the acceptor's side is on TCP");
            assertTrue(log.stream().anyMatch(l -> l.startsWith("lpf4j net: rank 0 uses TCP to rank 1: no shared memory in")
                    && l.contains("No space left")), log.toString());
            try (var left = Files.list(mountPoint)) {
                assertEquals(List.of("others"), left.map(f -> f.getFileName().toString()).toList(), "no file of the pair left");
            }
        } finally {
            new ProcessBuilder("umount", "-l", mountPoint.toString()).inheritIO().start().waitFor();
        }
    }

    @Test
    void theExchangeGivesRingsOnlyToSidesThatSeeTheSameFile(@TempDir Path base, @TempDir Path other) throws Exception {
        List<InetSocketAddress> loopback = List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 2));
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        byte[] secret = LocalPeers.secret(Handshake.newKey(), 7);
        LocalPeers zero = LocalPeers.at(base, secret, 0, 4096, loopback, log::add);
        LocalPeers one = LocalPeers.at(base, secret, 1, 4096, loopback, log::add);
        ShmLink[] main = prove(zero, one, Handshake.MAIN), large = prove(zero, one, Handshake.LARGE);
        try {
            for (ShmLink l : main) {
                assertNotNull(l, "a main connection between sides that see one file is on rings");
                assertNotNull(l.in);
                assertNotNull(l.out);
            }
            assertNotNull(large[0].out, "the large connection carries the dialler's payloads");
            assertNull(large[0].in, "and nothing back");
            assertNull(large[1].out);
            assertCarries(main, large, (byte) 42);
            assertFalse(Files.exists(zero.directory()), "the files and the job's directory are removed once both sides mapped them");
        } finally {
            one.end();
        }
        // The same host identity, another directory: the acceptor finds no file, both stay on TCP.
        LocalPeers elsewhere = LocalPeers.at(other, secret, 1, 4096, loopback, log::add);
        ShmLink[] apart = prove(zero, elsewhere, Handshake.MAIN);
        assertNull(apart[0]);
        assertNull(apart[1]);
        assertTrue(log.stream().anyMatch(l -> l.startsWith("lpf4j net: rank 1 uses TCP to rank 0 on the same host")), log.toString());
        assertFalse(Files.exists(zero.directory()), "the offer's file is removed after the answer");
        // Shared memory off on one side: no offer, the exchange still runs and says no.
        ShmLink[] off = prove(LocalPeers.off(0, log::add), LocalPeers.at(base, secret, 1, 4096, loopback, log::add), Handshake.MAIN);
        assertNull(off[0]);
        assertNull(off[1]);
        zero.end();
        zero.end(); // idempotent
        assertThrows(IllegalStateException.class, () -> main[0].write(Arena.ofAuto().allocate(64), 0, 64, null, 0, 0), "the mesh's end unmapped its rings");
    }

    /** Peers of one JVM share rings in its memory: no file is mapped (their directories may even differ), and the rings carry bytes both ways. */
    @Test
    void peersOfOneJvmShareRingsInItsMemory(@TempDir Path base, @TempDir Path other) throws Exception {
        List<InetSocketAddress> loopback = List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 2));
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        byte[] secret = LocalPeers.secret(Handshake.newKey(), 8);
        LocalPeers zero = LocalPeers.at(base, secret, true, 0, 4096, loopback, log::add);
        LocalPeers one = LocalPeers.at(other, secret, true, 1, 4096, loopback, log::add);
        ShmLink[] main = prove(zero, one, Handshake.MAIN), large = prove(zero, one, Handshake.LARGE);
        for (ShmLink l : main) assertNotNull(l, "a main connection within one JVM is on rings: " + log);
        assertNotNull(large[0].out, "the large connection carries the dialler's payloads");
        assertNull(large[0].in, "and nothing back");
        assertCarries(main, large, (byte) 7);
        assertFalse(Files.exists(zero.directory()) || Files.exists(one.directory()), "no file is left, none was mapped by the acceptor");
        // In-JVM rings off on the acceptor's side: the file's way, and in another directory it finds no file (TCP).
        ShmLink[] apart = prove(zero, LocalPeers.at(other, secret, false, 1, 4096, loopback, log::add), Handshake.MAIN);
        assertNull(apart[0]);
        assertNull(apart[1]);
        zero.end();
        one.end();
        assertEquals(64, main[0].write(Arena.ofAuto().allocate(64), 0, 64, null, 0, 0), "rings in this JVM's memory outlive the mesh's end");
    }
}
