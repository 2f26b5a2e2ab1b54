package org.lpf4j.bsplib;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * put/hpput/get/hpget: buffering, gets served before puts, zero sizes, many requests (the queue
 * grows), and the errors that name the call and the values.
 */
@Timeout(60)
class DrmaTest {
    static final int[] PROCS = Run.PROCS;

    @ParameterizedTest
    @FieldSource("PROCS")
    void putCopiesTheSourceAtTheCall(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment x = Run.longs(1), src = Run.longs(1);
            bsp.pushReg(x);
            bsp.sync();
            src.set(JAVA_LONG, 0, 11);
            bsp.put((bsp.pid() + 1) % p, src, x, 0, 8);
            src.set(JAVA_LONG, 0, 99); // after the call: must not matter
            bsp.sync();
            assertEquals(11, x.get(JAVA_LONG, 0));
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void hpputReadsTheSourceAtTheSync(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment x = Run.longs(2), reg = Run.longs(1), plain = Run.longs(1);
            bsp.pushReg(x);
            bsp.pushReg(reg);
            bsp.sync();
            int to = (bsp.pid() + 1) % p;
            reg.set(JAVA_LONG, 0, 1);
            plain.set(JAVA_LONG, 0, 2);
            bsp.hpput(to, reg, x, 0, 8);   // from a registered area: no copy at all
            bsp.hpput(to, plain, x, 8, 8); // from any segment: copied by the sync
            reg.set(JAVA_LONG, 0, 10);     // unbuffered: the sync sends what is there then
            plain.set(JAVA_LONG, 0, 20);
            bsp.sync();
            assertEquals(10, x.getAtIndex(JAVA_LONG, 0));
            assertEquals(20, x.getAtIndex(JAVA_LONG, 1));
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void getsAreServedBeforePutsOfTheSameSuperstep(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid(), right = (s + 1) % p;
            MemorySegment x = Run.longs(1), got = Run.longs(1), hpgot = Run.longs(1);
            x.set(JAVA_LONG, 0, 100 + s);
            bsp.pushReg(x);
            bsp.sync();
            // Every x is overwritten by a put in the superstep in which it is read by a get.
            bsp.put(right, Run.of(200 + s), x, 0, 8);
            bsp.get(right, x, 0, got, 8);
            bsp.hpget(right, x, 0, hpgot, 8);
            assertEquals(0, got.get(JAVA_LONG, 0), "a get writes its destination at the sync, not before");
            bsp.sync();
            assertEquals(100 + right, got.get(JAVA_LONG, 0), "the value before the superstep");
            assertEquals(100 + right, hpgot.get(JAVA_LONG, 0));
            assertEquals(200 + (s + p - 1) % p, x.get(JAVA_LONG, 0), "the put was applied");
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void getIntoARegisteredAreaThatAPutAlsoWritesEndsWithThePut(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            MemorySegment x = Run.longs(1), y = Run.longs(1);
            x.set(JAVA_LONG, 0, s);
            bsp.pushReg(x);
            bsp.pushReg(y);
            bsp.sync();
            bsp.get((s + 1) % p, x, 0, y, 8);         // y := x of the right neighbour (before puts)
            bsp.put(s, Run.of(-1), y, 0, 8);          // then y := -1 (puts after gets)
            bsp.sync();
            assertEquals(-1, y.get(JAVA_LONG, 0));
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void twoGetsOfTheSameRemoteAreaAndZeroByteRequests(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            MemorySegment x = Run.of(3L * s, 3L * s + 1), a = Run.longs(2), b = Run.longs(1);
            bsp.pushReg(x);
            bsp.sync();
            int from = (s + p - 1) % p;
            bsp.get(from, x, 0, a, 16);
            bsp.get(from, x, 8, b, 8);
            // Zero bytes: legal whatever the other arguments (as in BSPlib), and no effect.
            bsp.put(from, null, x, 0, 0);
            bsp.put(-1, null, Run.longs(1), -5, 0);
            bsp.get(from, x, 16, null, 0);
            bsp.get(p, null, -5, null, 0);
            bsp.hpget(from, Run.longs(1), 99, a, 0);
            bsp.hpput(from, null, x, 0, 0);
            bsp.sync();
            assertEquals(3L * from, a.getAtIndex(JAVA_LONG, 0));
            assertEquals(3L * from + 1, a.getAtIndex(JAVA_LONG, 1));
            assertEquals(3L * from + 1, b.get(JAVA_LONG, 0));
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void thousandsOfRequestsGrowTheQueueWithoutTheUserSizingIt(int p) {
        Run.bsp(p, bsp -> {
            int n = 1500, s = bsp.pid();
            MemorySegment x = Run.longs(n * p), y = Run.longs(n * p), src = Run.longs(n);
            for (int i = 0; i < n; i++) src.setAtIndex(JAVA_LONG, i, 1_000_000L * s + i);
            bsp.pushReg(x);
            bsp.pushReg(src);
            bsp.sync();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < n; i++) {
                    int q = (s + i) % p;
                    long at = 8L * ((long) s * n + i);
                    if (i % 2 == 0) bsp.put(q, src.asSlice(8L * i, 8), x, at, 8);
                    else bsp.hpput(q, src.asSlice(8L * i, 8), x, at, 8);
                    bsp.hpget(q, src, 8L * i, y.asSlice(8L * ((long) q * n + i)), 8);
                }
                bsp.sync();
                for (int r = 0; r < p; r++) {
                    for (int i = 0; i < n; i++) {
                        if ((r + i) % p == s) assertEquals(1_000_000L * r + i, x.getAtIndex(JAVA_LONG, (long) r * n + i));
                        if ((s + i) % p == r) assertEquals(1_000_000L * r + i, y.getAtIndex(JAVA_LONG, (long) r * n + i));
                    }
                }
            }
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void largePutsAndGets(int p) {
        Run.bsp(p, bsp -> {
            int n = 1 << 15, s = bsp.pid(); // 256 KiB
            MemorySegment x = Run.longs(n), src = Run.longs(n), back = Run.longs(n);
            for (int i = 0; i < n; i++) src.setAtIndex(JAVA_LONG, i, (long) s << 32 | i);
            bsp.pushReg(x);
            bsp.sync();
            bsp.put((s + 1) % p, src, x, 0, 8L * n);
            bsp.sync();
            bsp.get((s + 1) % p, x, 0, back, 8L * n); // gets back what it put
            bsp.sync();
            int left = (s + p - 1) % p;
            for (int i = 0; i < n; i += 97) {
                assertEquals((long) left << 32 | i, x.getAtIndex(JAVA_LONG, i));
                assertEquals((long) s << 32 | i, back.getAtIndex(JAVA_LONG, i));
            }
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void errorsNameTheCallAndTheValuesAndChangeNothing(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment x = Run.longs(2), plain = Run.longs(2);
            bsp.pushReg(x);
            bsp.sync();
            String m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.put(p, Run.of(1), x, 0, 8)).getMessage();
            assertTrue(m.contains("Bsplib.put(pid=" + p) && m.contains("pid out of range"), m);
            m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.get(-1, x, 0, plain, 8)).getMessage();
            assertTrue(m.contains("Bsplib.get(pid=-1") && m.contains("pid out of range"), m);
            m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.hpput(0, Run.of(1, 2), x, 8, 16)).getMessage();
            assertTrue(m.contains("offset=8, nbytes=16") && m.contains("past the destination area of 16 bytes that pid 0 registered"), m);
            m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.hpget(0, x, 16, plain, 8)).getMessage();
            assertTrue(m.contains("Bsplib.hpget") && m.contains("source area"), m);
            m = assertThrows(IllegalArgumentException.class, () -> bsp.get(0, plain, 0, x, 8)).getMessage();
            assertTrue(m.contains("is not registered"), m);
            m = assertThrows(IllegalArgumentException.class, () -> bsp.put(0, Run.of(1), x, -8, 8)).getMessage();
            assertTrue(m.contains("must not be negative"), m);
            m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.put(0, Run.of(1), x, 0, 16)).getMessage();
            assertTrue(m.contains("the source has only 8 bytes"), m);
            assertThrows(IndexOutOfBoundsException.class, () -> bsp.get(0, x, 0, Run.longs(1), 16));
            bsp.sync(); // nothing was queued by the failed calls
            assertEquals(0, x.getAtIndex(JAVA_LONG, 0));
            bsp.end();
            assertThrows(IllegalStateException.class, bsp::sync);
        });
    }

    /** The offset forms ({@code &a[k]} in C) read and write at their offsets, on both sync paths. */
    @ParameterizedTest
    @FieldSource("PROCS")
    void offsetFormsReadAndWriteAtTheirOffsets(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid(), right = (s + 1) % p, n = 8;
            long[] a = new long[n];
            for (int i = 0; i < n; i++) a[i] = 100L * s + i;
            MemorySegment as = MemorySegment.ofArray(a), x = Run.longs(4 * n), reg = Run.longs(n), plain = Run.longs(n);
            for (int i = 0; i < n; i++) {
                reg.setAtIndex(JAVA_LONG, i, 1000L * s + i);
                plain.setAtIndex(JAVA_LONG, i, 2000L * s + i);
            }
            bsp.pushReg(x);
            bsp.pushReg(reg);
            bsp.sync();
            for (int round = 0; round < 2; round++) { // round 1 spills (a large get): the full protocol
                long[] got = new long[3 * n + 1];
                MemorySegment gs = MemorySegment.ofArray(got);
                for (int k = 0; k < n; k++) {
                    bsp.put(right, as, 8L * k, x, 8L * (n - 1 - k), 8);     // reversed
                    bsp.hpput(right, reg, 8L * k, x, 8L * (n + k), 8);       // from a registered area: direct
                    bsp.hpput(right, plain, 8L * k, x, 8L * (2 * n + k), 8); // copied at the sync
                    bsp.get(right, reg, 8L * k, gs, 8L * (1 + k), 8);
                    bsp.hpget(right, reg, 8L * k, gs, 8L * (1 + n + k), 8);
                }
                if (round == 1) bsp.get(right, x, 0, Run.longs(4 * n), 0, 8L * 4 * n);
                for (int i = 0; i < 4000 * round; i++) bsp.put(right, as, 0, x, 8L * 3 * n, 8); // spills the stream
                plain.setAtIndex(JAVA_LONG, 0, 2000L * s + 50 + round); // hpput reads it at the sync
                bsp.sync();
                int left = (s + p - 1) % p;
                for (int k = 0; k < n; k++) {
                    assertEquals(100L * left + n - 1 - k, x.getAtIndex(JAVA_LONG, k), "put at srcOffset, round " + round);
                    assertEquals(1000L * left + k, x.getAtIndex(JAVA_LONG, n + k));
                    assertEquals(k == 0 ? 2000L * left + 50 + round : 2000L * left + k, x.getAtIndex(JAVA_LONG, 2 * n + k));
                    assertEquals(1000L * right + k, got[1 + k], "get at dstOffset");
                    assertEquals(1000L * right + k, got[1 + n + k], "hpget at dstOffset");
                }
                assertEquals(0, got[0], "nothing before dstOffset");
                assertEquals(0, got[2 * n + 1], "nothing after");
            }
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void offsetFormsCheckTheirBounds(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment x = Run.longs(2), a = Run.longs(2);
            bsp.pushReg(x);
            bsp.sync();
            String m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.put(0, a, 9, x, 0, 8)).getMessage();
            assertTrue(m.contains("Bsplib.put(pid=0, offset=0, nbytes=8, srcOffset=9)") && m.contains("the source has only 16 bytes"), m);
            m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.hpput(0, a, 16, x, 0, 1)).getMessage();
            assertTrue(m.contains("Bsplib.hpput(pid=0, offset=0, nbytes=1, srcOffset=16)"), m);
            m = assertThrows(IllegalArgumentException.class, () -> bsp.put(0, a, -8, x, 0, 8)).getMessage();
            assertTrue(m.contains("srcOffset=-8") && m.contains("must not be negative"), m);
            m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.get(0, x, 0, a, 12, 8)).getMessage();
            assertTrue(m.contains("Bsplib.get(pid=0, offset=0, nbytes=8, dstOffset=12)") && m.contains("smaller than nbytes past dstOffset"), m);
            m = assertThrows(IllegalArgumentException.class, () -> bsp.hpget(0, x, 0, a, -1, 8)).getMessage();
            assertTrue(m.contains("Bsplib.hpget") && m.contains("dstOffset=-1"), m);
            bsp.put(0, a, 8, x, 8, 8);  // the last long of a into the last of x: fits exactly
            bsp.get(0, x, 8, a, 8, 8);
            bsp.sync();
        });
    }
}
