package org.lpf4j.engine.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process whose sync fails midway for an error of its own (a buffer for a large payload that the
 * JVM refused, after the sync's round) leaves the job as a dead one would ({@code Mesh.leave}): every other process's sync fails naming it and its error,
 * at once, with no sync deadline set (before, the receiver waited forever for the payload, and the
 * others for the receiver).
 */
@Timeout(120)
class LeaveMidSuperstepTest {
    private static final long LARGE = 1 << 20;
    private static final NetSections SECTIONS = new NetSections(LoopbackNetEngine.PROTOCOL, "leavetest", 10_000_000L);

    @Test
    void theOthersOfAProcessThatFailsMidSyncFailAtOnceNamingItsError() throws Exception {
        int p = 8, failing = 1, fresh = 4;
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        FatalException[] out = new FatalException[p];
        long t0 = System.nanoTime();
        Throwable[] thrown = MeshTest.job(p, Handshake.newKey(), ThreadLocalRandom.current().nextLong(), log, a -> {}, (rank, mesh) -> {
            out[rank] = SECTIONS.run(mesh, mesh.nextSection(), p, ctx -> {
                int me = ctx.pid();
                MemorySegment x = Arena.ofAuto().allocate(2 * LARGE);
                ctx.resizeMemoryRegister(1);
                ctx.resizeMessageQueue(2);
                ctx.sync();
                Memslot xs = ctx.registerGlobal(x);
                ctx.sync();
                if (me == failing) {
                    FrameIo.largeSendFailsForTest = Thread.currentThread();
                    ctx.put(xs, 0, fresh, xs, LARGE, LARGE); // its payload goes after the round
                }
                ctx.sync();
            }, Args.NONE, "exec", 1);
            mesh.close();
        });
        long millis = (System.nanoTime() - t0) / 1_000_000;
        FrameIo.largeSendFailsForTest = null;
        for (int r = 0; r < p; r++) {
            assertNull(thrown[r], "rank " + r + " broke outside its section: " + thrown[r]);
            assertNotNull(out[r], "rank " + r + "'s section ended well");
            String m = out[r].getMessage();
            assertTrue(m.contains("pid " + failing + " left superstep") && m.contains("injected for a test"), "rank " + r + ": " + m);
        }
        assertTrue(millis < 60_000, "the job took " + millis + " ms");
    }
}
