package org.lpf4j.bsmp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** send (slot API and copying conveniences), move and sync allocate nothing per call. */
@Timeout(60)
class BsmpAllocationTest {
    static final int MESSAGES = 64;
    static final int ROUNDS = 400;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static long allocatedBytes() { return THREADS.getCurrentThreadAllocatedBytes(); }

    @Test
    void hotPathsAllocateNothing() {
        Sections.run(2, ctx -> {
            int s = ctx.pid(), p = ctx.nprocs();
            Sections.reserve(ctx, 1, MESSAGES, 1, 0);
            MemorySegment src = Arena.ofAuto().allocate(64, 8);
            Memslot slot = ctx.registerLocal(src);
            MemorySegment payload = Arena.ofAuto().allocate(24);
            byte[] array = new byte[24];
            try (Bsmp bsmp = Bsmp.create(ctx, 32L * MESSAGES, 8, MESSAGES)) {
                long[] spent = new long[3]; // send, move, sync
                for (int r = 0; r < 2 * ROUNDS; r++) {
                    boolean measure = r >= ROUNDS; // the first half warms up
                    long t0 = allocatedBytes();
                    for (int i = 0; i < MESSAGES / 4; i++) {
                        bsmp.send((s + i) % p, slot, 0, slot, 8, 32);
                        bsmp.send((s + i) % p, slot, 0, null, 0, 0);
                        bsmp.sendLongTag((s + i + 1) % p, i, payload);
                        bsmp.sendLongTag((s + i + 1) % p, i, array);
                    }
                    long t1 = allocatedBytes();
                    bsmp.sync();
                    long t2 = allocatedBytes();
                    int moved = 0;
                    while (bsmp.move() != null) moved++;
                    long t3 = allocatedBytes();
                    bsmp.sync();
                    long t4 = allocatedBytes();
                    assertEquals(MESSAGES, moved);
                    if (measure) {
                        spent[0] += t1 - t0;
                        spent[1] += t3 - t2;
                        spent[2] += (t2 - t1) + (t4 - t3);
                    }
                }
                // ROUNDS x 64 sends and moves: a per-call allocation would show as >= 400 x 64 x 16 bytes.
                assertTrue(spent[0] < 4096, "send allocated " + spent[0] + " bytes");
                assertTrue(spent[1] < 4096, "move allocated " + spent[1] + " bytes");
                assertTrue(spent[2] < 4096, "sync allocated " + spent[2] + " bytes");
            }
            ctx.deregister(slot);
        });
    }
}
