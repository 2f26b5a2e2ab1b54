package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.superstep.Transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The net transport's sparse consensus ({@link NetTransport#exchangeNonzero}) over real loopback
 * meshes, threads as processes: every rank learns exactly the nonzero counts meant for it, in
 * supersteps of random sparse patterns (none, one destination, many) interleaved with the round's
 * allreduce, so that the consensus's frames never mix with the other collectives'; and a peer
 * that dies instead of taking part fails the others' consensus, naming it, instead of hanging it.
 */
@Timeout(120)
class SparseConsensusTest {
    interface Body {
        void run(int rank, Mesh mesh) throws Exception;
    }

    /** Runs {@code body} as every rank of {@code p} threads, each with a mesh; returns what each threw. */
    static Throwable[] job(int p, Body body) throws Exception {
        byte[] key = Handshake.newKey();
        long job = ThreadLocalRandom.current().nextLong();
        InetSocketAddress[] addresses = new InetSocketAddress[p];
        CyclicBarrier published = new CyclicBarrier(p);
        Throwable[] thrown = new Throwable[p];
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            int rank = r;
            threads.add(Thread.ofPlatform().start(() -> {
                try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), p)) {
                    addresses[rank] = (InetSocketAddress) server.getLocalAddress();
                    published.await(30, TimeUnit.SECONDS);
                    Mesh mesh = Mesh.connect(rank, p, key, job, server, Arrays.asList(addresses), 20_000, 0, 0, s -> {});
                    body.run(rank, mesh);
                } catch (Throwable t) {
                    thrown[rank] = t;
                }
            }));
        }
        for (Thread t : threads) t.join(100_000);
        return thrown;
    }

    /** Rank {@code s}'s counts in superstep {@code step}: each rank's pattern is known to every rank. */
    private static long[] out(int s, int step, int p) {
        SplittableRandom r = new SplittableRandom(step * 1_000_003L + s);
        long[] out = new long[p];
        int kind = step % 4; // none, one destination, a few, everyone
        int d = kind == 0 ? 0 : kind == 1 ? 1 : kind == 2 ? Math.max(1, p / 4) : p;
        for (int i = 0; i < d; i++) out[r.nextInt(p)] = 1 + r.nextInt(1_000_000);
        return out;
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {2, 3, 4, 5, 8})
    void everyRankLearnsExactlyTheCountsMeantForIt(int p) throws Exception {
        Throwable[] thrown = job(p, (rank, mesh) -> {
            try (mesh; Arena a = Arena.ofConfined()) {
                NetTransport t = new NetTransport(mesh, mesh.nextSection(), p);
                MemorySegment words = a.allocate(16);
                long[] in = new long[p];
                for (int step = 0; step < 60; step++) {
                    words.set(ValueLayout.JAVA_LONG, 0, 1L << rank);
                    t.allreduce(words, 1, Transport.Reduction.OR); // the round, before every consensus
                    assertEquals((1L << p) - 1, words.get(ValueLayout.JAVA_LONG, 8));
                    Arrays.fill(in, -1);
                    t.exchangeNonzero(out(rank, step, p), in);
                    long[] want = new long[p];
                    for (int s = 0; s < p; s++) if (s != rank) want[s] = out(s, step, p)[rank];
                    want[rank] = -1; // its own entry untouched
                    assertArrayEquals(want, in, "rank " + rank + " at step " + step);
                }
                t.close();
            }
        });
        for (int r = 0; r < p; r++) assertNull(thrown[r], "rank " + r + ": " + thrown[r]);
    }

    /**
     * Sections smaller than the mesh, one after another on it (as nested sections and sections of
     * a job that runs several sizes are): a section's consensus involves its members only, and
     * its frames never mix with another section's, including one of the same size.
     */
    @Test
    void sectionsSmallerThanTheMeshEachLearnTheirOwnCounts() throws Exception {
        int p = 8;
        int[] sizes = {5, 3, 8, 5, 2};
        Throwable[] thrown = job(p, (rank, mesh) -> {
            try (mesh; Arena a = Arena.ofConfined()) {
                MemorySegment words = a.allocate(16);
                for (int k = 0; k < sizes.length; k++) {
                    int m = sizes[k], section = mesh.nextSection(); // every rank numbers every section alike
                    if (rank >= m) continue;
                    NetTransport t = new NetTransport(mesh, section, m);
                    long[] in = new long[m];
                    for (int step = 0; step < 30; step++) {
                        int salt = 100 * k + step;
                        words.set(ValueLayout.JAVA_LONG, 0, 1L << rank);
                        t.allreduce(words, 1, Transport.Reduction.OR);
                        assertEquals((1L << m) - 1, words.get(ValueLayout.JAVA_LONG, 8), "the round of section " + k);
                        Arrays.fill(in, -1);
                        t.exchangeNonzero(out(rank, salt, m), in);
                        long[] want = new long[m];
                        for (int s = 0; s < m; s++) if (s != rank) want[s] = out(s, salt, m)[rank];
                        want[rank] = -1;
                        assertArrayEquals(want, in, "rank " + rank + " of section " + k + " (" + m + " members) at step " + step);
                    }
                    t.close();
                }
            }
        });
        for (int r = 0; r < p; r++) assertNull(thrown[r], "rank " + r + ": " + thrown[r]);
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {2, 3, 5, 8})
    void aPeerThatDiesInsteadOfTakingPartIsNamed(int p) throws Exception {
        Throwable[] thrown = job(p, (rank, mesh) -> {
            NetTransport t = new NetTransport(mesh, mesh.nextSection(), p);
            long[] in = new long[p], out = new long[p];
            Arrays.fill(out, 7);
            t.exchangeNonzero(out, in); // one that everyone takes part in
            if (rank == p - 1) {
                mesh.dropConnectionsForTest(); // as if its JVM died
                return;
            }
            try (mesh) {
                t.exchangeNonzero(out, in);
            }
        });
        assertNull(thrown[p - 1]);
        for (int r = 0; r < p - 1; r++) {
            Transport.Stopped s = assertInstanceOf(Transport.Stopped.class, thrown[r], "rank " + r);
            assertTrue(s.getMessage().contains("pid " + (p - 1)), s.getMessage());
        }
    }
}
