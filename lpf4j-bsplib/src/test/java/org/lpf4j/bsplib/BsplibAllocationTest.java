package org.lpf4j.bsplib;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * put, hpput, get, send, getTag, move and sync allocate nothing per call once the buffers have
 * grown; nor do the offset forms ({@code &a[k]} in a C port) of put, hpput, get, hpget, send,
 * hpsend, getTag, move and hpmove.
 */
@Timeout(60)
class BsplibAllocationTest {
    static final int CALLS = 32;
    static final int ROUNDS = 400;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static long allocatedBytes() { return THREADS.getCurrentThreadAllocatedBytes(); }

    @Test
    void hotPathsAllocateNothing() {
        Run.bsp(2, bsp -> {
            int s = bsp.pid(), p = bsp.nprocs();
            MemorySegment x = Arena.ofShared().allocate(8L * CALLS * p, 8), reg = Arena.ofShared().allocate(64, 8);
            long[] heap = new long[CALLS];
            MemorySegment h = MemorySegment.ofArray(heap), src = Arena.ofShared().allocate(64, 8);
            MemorySegment got = Arena.ofShared().allocate(8L * CALLS, 8), tag = Arena.ofShared().allocate(8, 8);
            MemorySegment payload = Arena.ofShared().allocate(64, 8), first = got.asSlice(0, 8);
            bsp.pushReg(x);
            bsp.pushReg(h);
            bsp.pushReg(reg);
            bsp.setTagsize(8);
            bsp.sync();
            long[] spent = new long[3]; // calls, queue, sync
            for (int r = 0; r < 2 * ROUNDS; r++) {
                boolean measure = r >= ROUNDS; // the first half warms up
                long t0 = allocatedBytes();
                for (int i = 0; i < CALLS / 4; i++) {
                    int q = (s + i) % p;
                    bsp.put(q, src, x, 8L * (s * CALLS + i), 8);
                    bsp.put(q, src, h, 8L * i, 8);                  // a heap area by identity
                    bsp.hpput(q, reg, x, 8L * (s * CALLS + CALLS / 2 + i), 8);
                    bsp.get(q, x, 0, first, 0);                    // zero bytes
                    bsp.hpget(q, reg, 0, got, 8);
                    bsp.send(q, tag, payload, 24);
                }
                long t1 = allocatedBytes();
                bsp.sync();
                long t2 = allocatedBytes();
                int moved = 0;
                while (bsp.getTag(tag) >= 0) {
                    bsp.move(payload);
                    moved++;
                }
                long t3 = allocatedBytes();
                assertEquals(CALLS / 4, moved);
                if (measure) {
                    spent[0] += t1 - t0;
                    spent[1] += t3 - t2;
                    spent[2] += t2 - t1;
                }
            }
            // ROUNDS x 48 calls: a per-call allocation would show as >= 400 x 48 x 16 bytes.
            assertTrue(spent[0] < 4096, "put/hpput/get/send allocated " + spent[0] + " bytes");
            assertTrue(spent[1] < 4096, "getTag/move allocated " + spent[1] + " bytes");
            assertTrue(spent[2] < 4096, "sync allocated " + spent[2] + " bytes");
        });
    }

    @Test
    void offsetFormsAllocateNothing() {
        Run.bsp(2, bsp -> {
            int s = bsp.pid(), p = bsp.nprocs(), n = CALLS;
            long[] a = new long[n], b = new long[n];  // the C port's arrays
            MemorySegment as = MemorySegment.ofArray(a), bs = MemorySegment.ofArray(b);
            MemorySegment x = Arena.ofShared().allocate(8L * n * p, 8), reg = Arena.ofShared().allocate(8L * n, 8);
            MemorySegment tags = Arena.ofShared().allocate(8L * n, 8);
            BspMessageView view = new BspMessageView();
            bsp.pushReg(x);
            bsp.pushReg(reg);
            bsp.setTagsize(8);
            bsp.sync();
            long[] spent = new long[3]; // calls, queue, sync
            long sum = 0;
            for (int r = 0; r < 2 * ROUNDS; r++) {
                boolean measure = r >= ROUNDS; // the first half warms up
                long t0 = allocatedBytes();
                for (int k = 0; k < n / 8; k++) {
                    int q = (s + k) % p;
                    bsp.put(q, as, 8L * k, x, 8L * (s * n + k), 8);
                    bsp.hpput(q, reg, 8L * k, x, 8L * (s * n + n / 2 + k), 8);       // registered: direct
                    bsp.hpput(q, bs, 8L * k, x, 8L * (s * n + n / 4 + k), 8);        // copied at the sync
                    bsp.get(q, reg, 8L * k, bs, 8L * (n - 1 - k), 8);
                    bsp.hpget(q, x, 8L * k, as, 8L * (n / 2 + k), 8);
                    bsp.send(q, tags, 8L * k, as, 8L * k, 16);
                    bsp.hpsend(q, tags, 8L * (k + 1), bs, 8L * k, 8);
                }
                long t1 = allocatedBytes();
                bsp.sync();
                long t2 = allocatedBytes();
                int k = 0;
                while (bsp.getTag(tags, 8L * (k % n)) >= 0) {
                    if (k % 2 == 0) bsp.move(bs, 8L * (k % (n - 2)), 16);
                    else if (bsp.hpmove(view) >= 0) sum += view.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG, view.payloadOffset());
                    k++;
                }
                long t3 = allocatedBytes();
                assertEquals(2 * (n / 8), k);
                if (measure) {
                    spent[0] += t1 - t0;
                    spent[1] += t3 - t2;
                    spent[2] += t2 - t1;
                }
            }
            // ROUNDS x 28 calls and 8 queue operations: a per-call allocation would show as >= 400 x 36 x 16 bytes.
            assertTrue(spent[0] < 4096, "the offset forms of put/hpput/get/hpget/send/hpsend allocated " + spent[0] + " bytes");
            assertTrue(spent[1] < 4096, "getTag/move/hpmove into a view allocated " + spent[1] + " bytes (sum " + sum + ")");
            assertTrue(spent[2] < 4096, "sync allocated " + spent[2] + " bytes");
        });
    }
}
