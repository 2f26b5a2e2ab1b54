package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;
import org.lpf4j.spi.boot.LocalJob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link JvmRanks}: 5 ranks at 3 per "JVM" (two sessions of a {@link LocalJob}, the second JVM
 * holding 2) see each other's committed values after one collect fence, their own at once, and
 * the JVM count must match; a fence of some ranks is refused.
 */
@Timeout(30)
class JvmRanksTest {
    @Test
    void fiveRanksInTwoJvmsSeeEachOthersValues() throws Exception {
        try (LocalJob job = new LocalJob(2)) {
            List<JvmRanks> jvms = List.of(new JvmRanks(job.session(0), 3, 5), new JvmRanks(job.session(1), 3, 5));
            assertEquals(3, jvms.get(0).count());
            assertEquals(2, jvms.get(1).count());
            Map<Integer, String> seen = new ConcurrentHashMap<>();
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (JvmRanks j : jvms) {
                for (int i = 0; i < j.count(); i++) {
                    BootSession s = j.session(i);
                    all.add(CompletableFuture.runAsync(() -> {
                        try (s) {
                            s.put("who", ("rank " + s.rank()).getBytes(StandardCharsets.UTF_8));
                            assertEquals("rank " + s.rank(), new String(s.get(s.rank(), "who"), StandardCharsets.UTF_8));
                            s.commit();
                            s.fence(FenceOptions.collect());
                            StringBuilder b = new StringBuilder();
                            for (int q = 0; q < s.size(); q++) b.append(new String(s.get(q, "who"), StandardCharsets.UTF_8)).append(';');
                            seen.put(s.rank(), b.toString());
                            s.fence(FenceOptions.barrier());
                        }
                    }, r -> Thread.ofPlatform().daemon().start(r))); // each rank blocks in the fence: a thread each
                }
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get();
            assertEquals(5, seen.size());
            seen.values().forEach(v -> assertEquals("rank 0;rank 1;rank 2;rank 3;rank 4;", v));
        }
    }

    @Test
    void theJvmCountMustMatchAndSubsetFencesAreRefused() {
        try (LocalJob job = new LocalJob(2)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new JvmRanks(job.session(0), 2, 5));
            assertTrue(e.getMessage().contains("need 3 JVMs") && e.getMessage().contains("lpf.engine.net.perJvm"), e.getMessage());
            JvmRanks j = new JvmRanks(job.session(1), 2, 4);
            BootSession s = j.session(0);
            assertEquals(2, s.rank());
            assertThrows(IllegalArgumentException.class, () -> s.fence(FenceOptions.collect().ranks(2, 3)));
        }
    }
}
