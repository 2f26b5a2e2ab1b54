package org.lpf4j.spi.kit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.engine.threads.ThreadsEngine;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The kit's start-of-section collectives over a real engine, with ragged and empty contributions. */
@Timeout(30)
class StartCollectivesTest {

    /** Pid q contributes q copies of the letter 'a' + q (pid 0 nothing). */
    private static byte[] of(int q) {
        return String.valueOf((char) ('a' + q)).repeat(q).getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void allgatherGivesEveryProcessEveryonesBytesByPid(int p) {
        AtomicInteger checked = new AtomicInteger();
        ThreadsEngine.root().exec(p, ctx -> {
            byte[][] all = StartCollectives.allgather(ctx, of(ctx.pid()));
            assertEquals(p, all.length);
            for (int q = 0; q < p; q++) assertArrayEquals(of(q), all[q], "pid " + ctx.pid() + " sees pid " + q);
            byte[][] none = StartCollectives.allgather(ctx, new byte[0]);
            for (byte[] b : none) assertEquals(0, b.length);
            ctx.sync(); // nothing left registered or queued: the context goes on
            checked.incrementAndGet();
        });
        assertEquals(p, checked.get());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 8})
    void fromPid0GivesEveryProcessPid0sBytes(int p) {
        AtomicInteger checked = new AtomicInteger();
        ThreadsEngine.root().exec(p, ctx -> {
            byte[] sent = ctx.pid() == 0 ? "figures".getBytes(StandardCharsets.UTF_8) : null;
            assertArrayEquals("figures".getBytes(StandardCharsets.UTF_8), StartCollectives.fromPid0(ctx, sent));
            assertEquals(0, StartCollectives.fromPid0(ctx, new byte[0]).length);
            checked.incrementAndGet();
        });
        assertEquals(p, checked.get());
    }
}
