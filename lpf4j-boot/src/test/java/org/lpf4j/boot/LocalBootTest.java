package org.lpf4j.boot;

import org.lpf4j.spi.BootModule;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Framework;
import org.lpf4j.spi.boot.BootException;
import org.lpf4j.spi.boot.BootSession;
import org.lpf4j.spi.boot.FenceOptions;
import org.lpf4j.spi.boot.LocalJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The boot rules with the {@code local} module: p processes as threads of this JVM. */
class LocalBootTest {

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void everyRuleHolds(int p) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(p);
        try (LocalJob job = new LocalJob(p)) {
            List<Future<?>> ranks = new ArrayList<>();
            for (int r = 0; r < p; r++) {
                BootSession s = job.session(r);
                ranks.add(pool.submit(() -> {
                    try (s) {
                        BootRules.run(s, EnumSet.noneOf(BootRules.Optional.class), rule -> { });
                    }
                    return null;
                }));
            }
            for (Future<?> f : ranks) f.get(90, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aRankThatNeverArrivesIsNamedByTheTimeout() {
        try (LocalJob job = new LocalJob(3)) {
            BootSession s0 = job.session(0);
            job.session(1);
            job.session(2);
            long t0 = System.nanoTime();
            BootException e = assertThrows(BootException.class,
                    () -> s0.fence(FenceOptions.barrier().timeout(java.time.Duration.ofMillis(300))));
            assertArrayEquals(new int[]{1, 2}, e.missingRanks(), e.getMessage());
            assertEquals(true, (System.nanoTime() - t0) < 2_000_000_000L);
        }
    }

    @Test
    void theLocalModuleOpensAOneProcessJob() {
        BootModule local = (BootModule) Components.installed().byName(Framework.BOOT, "local");
        try (BootSession s = local.openSession()) {
            assertEquals(0, s.rank());
            assertEquals(1, s.size());
            s.put("a", new byte[]{1});
            s.commit();
            s.fence(FenceOptions.collect());
            assertArrayEquals(new byte[]{1}, s.get(0, "a"));
        }
    }

    @Test
    void envTellsMembershipOnlyAndSaysSo() {
        BootModule env = (BootModule) Components.installed().byName(Framework.BOOT, "env");
        BootException e = assertThrows(BootException.class, env::openSession);
        assertEquals(true, e.getMessage().contains("opens no session"), e.getMessage());
    }
}
