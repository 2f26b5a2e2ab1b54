package org.lpf4j.boot;

import org.lpf4j.boot.tcp.TcpCoordinator;
import org.lpf4j.boot.tcp.TcpSession;
import org.lpf4j.boot.tcp.TcpSettings;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * p = 256 through the real tcp protocol: 256 sessions, each its own authenticated connection to
 * one coordinator, as threads of this JVM (256 JVMs do not fit a 2-core test machine); the
 * coordinator handles and sends a constant number of frames per rank.
 */
class TcpScaleTest {

    @Test
    void twoHundredFiftySixRanksExchangeOneKibEach() throws Exception {
        int p = 256;
        byte[] key = TcpJob.newKey().getBytes(StandardCharsets.UTF_8);
        ExecutorService pool = Executors.newFixedThreadPool(p);
        try (TcpCoordinator c = new TcpCoordinator(new InetSocketAddress("127.0.0.1", 0), p, key, 64 << 20, new RecordingLogger())) {
            List<Future<?>> ranks = new ArrayList<>();
            for (int r = 0; r < p; r++) {
                int rank = r;
                ranks.add(pool.submit(() -> {
                    try (BootSession s = TcpSession.open(new TcpSettings(c.address(), key, rank, p, false, "127.0.0.1", 30_000, 64 << 20))) {
                        s.put("v", BootRules.pattern(rank, 1024, 9));
                        s.commit();
                        s.fence(FenceOptions.collect().timeout(Duration.ofSeconds(60)));
                        for (int q = 0; q < p; q++) {
                            byte[] v = s.get(q, "v");
                            if (!Arrays.equals(BootRules.pattern(q, 1024, 9), v)) {
                                assertArrayEquals(BootRules.pattern(q, 1024, 9), v, "rank " + rank + " got v of " + q);
                            }
                        }
                        if (rank % 2 == 0) {
                            s.fence(FenceOptions.barrier().ranks(java.util.stream.IntStream.range(0, p).filter(x -> x % 2 == 0).toArray())
                                    .timeout(Duration.ofSeconds(60)));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : ranks) f.get(120, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!c.finished() && System.nanoTime() < deadline) Thread.onSpinWait(); // the last goodbyes in flight
            // Counted, not timed: the host handles a constant number of frames per rank (a commit, a fence and
            // a goodbye each, the even ranks' barrier), none that grows with p (the gets are answered locally).
            assertEquals(3L * p + p / 2, c.framesReceived(), "frames the coordinator handled");
            // and sends each rank one DATA frame (every owner's values together) and a FENCE_OK per fence, not a frame per owner
            assertEquals(2L * p + p / 2, c.framesSent(), "frames the coordinator sent");
        } finally {
            pool.shutdownNow();
        }
    }
}
