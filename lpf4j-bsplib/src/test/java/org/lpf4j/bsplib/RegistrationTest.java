package org.lpf4j.bsplib;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * push_reg/pop_reg: identity (not the segment object), effect at the next sync, stacking, popping
 * the latest, pop before put, collective mismatches, many registrations (the register grows).
 */
@Timeout(60)
class RegistrationTest {
    static final int[] PROCS = Run.PROCS;
    static final int[] MULTI = Run.MULTI;

    @ParameterizedTest
    @FieldSource("PROCS")
    void heapAreasAreNamedByArrayAndOffsetNotBySegmentObject(int p) {
        Run.bsp(p, bsp -> {
            long[] a = new long[4];
            bsp.pushReg(MemorySegment.ofArray(a));
            bsp.sync();
            int to = (bsp.pid() + 1) % p;
            // A new segment over the same array names the same area ...
            bsp.put(to, Run.of(7), MemorySegment.ofArray(a), 8, 8);
            // ... a slice starting elsewhere does not, nor does another array of the same contents.
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> bsp.put(to, Run.of(1), MemorySegment.ofArray(a).asSlice(8), 0, 8));
            assertTrue(e.getMessage().contains("not registered") && e.getMessage().contains("Bsplib.put"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> bsp.put(to, Run.of(1), MemorySegment.ofArray(new long[4]), 0, 8));
            bsp.sync();
            assertEquals(7, a[1]);
            // A native area: a slice at offset 0 of it is the same area.
            MemorySegment n = Run.longs(2);
            bsp.pushReg(n);
            bsp.sync();
            bsp.put(to, Run.of(9), n.asSlice(0, 8), 8, 8);
            bsp.sync();
            assertEquals(9, n.getAtIndex(JAVA_LONG, 1));
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void aRegistrationTakesEffectAtTheNextSync(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment x = Run.longs(1);
            bsp.pushReg(x);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bsp.put(0, Run.of(1), x, 0, 8));
            assertTrue(e.getMessage().contains("only since this superstep"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> bsp.get(0, x, 0, Run.longs(1), 8));
            bsp.sync();
            bsp.put(p - 1, Run.of(5), x, 0, 8);
            bsp.sync();
            if (bsp.pid() == p - 1) assertEquals(5, x.get(JAVA_LONG, 0));
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void pushingTwiceStacksAndPopRemovesTheLatest(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment big = Run.longs(4), small = big.asSlice(0, 16); // same start: the same area
            bsp.pushReg(big);
            bsp.sync();
            bsp.pushReg(small); // shrinking registration on top
            bsp.sync();
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> bsp.put(0, Run.of(1), big, 16, 8));
            assertTrue(e.getMessage().contains("past the destination area of 16 bytes that pid 0 registered"), e.getMessage());
            bsp.put(0, Run.of(1), big, 8, 8);
            bsp.popReg(big); // the latest (16 bytes) goes at the sync; until then still usable
            bsp.put(0, Run.of(2), big, 0, 8);
            assertThrows(IndexOutOfBoundsException.class, () -> bsp.put(0, Run.of(1), big, 16, 8));
            bsp.sync();
            bsp.put(0, Run.of(3), big, 24, 8); // the 32-byte registration is back on top
            bsp.sync();
            if (bsp.pid() == 0) {
                assertEquals(2, big.getAtIndex(JAVA_LONG, 0));
                assertEquals(1, big.getAtIndex(JAVA_LONG, 1));
                assertEquals(3, big.getAtIndex(JAVA_LONG, 3));
            }
            bsp.popReg(big);
            bsp.sync();
            assertThrows(IllegalArgumentException.class, () -> bsp.put(0, Run.of(1), big, 0, 8));
            IllegalArgumentException pop = assertThrows(IllegalArgumentException.class, () -> bsp.popReg(big));
            assertTrue(pop.getMessage().contains("Bsplib.popReg"), pop.getMessage());
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void growingRegistrationsOfTheSameArea(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment mem = Run.longs(8);
            for (int k = 1; k <= 8; k++) {
                bsp.pushReg(mem.asSlice(0, 8L * k));
                bsp.sync();
                bsp.put((bsp.pid() + 1) % p, Run.of(k), mem, 8L * (k - 1), 8); // past the previous size
                bsp.sync();
            }
            for (int k = 0; k < 8; k++) assertEquals(k + 1, mem.getAtIndex(JAVA_LONG, k));
            for (int k = 8; k >= 1; k--) {
                bsp.put(0, Run.of(-k), mem, 8L * (k - 1), 8);
                bsp.popReg(mem);
                bsp.sync();
            }
            assertThrows(IllegalArgumentException.class, () -> bsp.put(0, Run.of(1), mem, 0, 8));
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void manyDifferentAreasGrowTheRegisterAndPopInAnyInterleaving(int p) {
        Run.bsp(p, bsp -> {
            int n = 40, s = bsp.pid();
            MemorySegment[] x = new MemorySegment[n];
            for (int i = 0; i < n; i++) {
                x[i] = Arena.ofShared().allocate(8L * p, 8);
                bsp.pushReg(x[i]);
            }
            bsp.sync();
            for (int i = 0; i < n; i++) for (int q = 0; q < p; q++) bsp.put(q, Run.of(1000L * i + s), x[i], 8L * s, 8);
            for (int i = 0; i < n; i += 2) bsp.popReg(x[i]); // popped at this sync, still used in it
            bsp.sync();
            for (int i = 0; i < n; i++) for (int q = 0; q < p; q++) assertEquals(1000L * i + q, x[i].getAtIndex(JAVA_LONG, q));
            for (int i = 0; i < n; i++) {
                if (i % 2 == 0) assertThrows(IllegalArgumentException.class, () -> bsp.put(0, Run.of(0), x[0], 0, 8));
            }
            bsp.put(0, Run.of(1), x[1], 0, 8);
            bsp.sync();
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void aFreshAreaEverySuperstepReusesThePoppedNumbersAlsoAfterAVoidedSuperstep(int p) {
        int rounds = 1500;
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            MemorySegment prev = null;
            for (int i = 0; i < rounds; i++) {
                MemorySegment x = Run.longs(p);
                bsp.pushReg(x);
                if (prev != null) bsp.popReg(prev);
                if (i % 100 == 50 && p > 1) {
                    // A superstep the processes disagree on: the last one pushes one more, and every process voids it.
                    if (s == p - 1) bsp.pushReg(Run.longs(1));
                    IllegalStateException e = assertThrows(IllegalStateException.class, bsp::sync);
                    assertTrue(e.getMessage().contains("pushReg called"), e.getMessage());
                    bsp.pushReg(x);
                    if (prev != null) bsp.popReg(prev);
                }
                bsp.sync();
                // Every put names x by its sequence number: a number that differs between processes misplaces or refuses it.
                for (int q = 0; q < p; q++) bsp.put(q, Run.of(1000L * i + s), x, 8L * s, 8);
                bsp.sync();
                for (int q = 0; q < p; q++) assertEquals(1000L * i + q, x.getAtIndex(JAVA_LONG, q), "round " + i + " from pid " + q);
                prev = x;
            }
            // Two registrations alive at once at most (the new area and the one popped in its superstep), one voided extra.
            assertTrue(bsp.registry().sequenceNumbers() <= 3, rounds + " areas pushed one after another took "
                    + bsp.registry().sequenceNumbers() + " sequence numbers");
        });
    }

    @ParameterizedTest
    @FieldSource("MULTI")
    void severalPoppedNumbersAreReusedInTheSameOrderAfterAVoidThatTookDifferentCounts(int p) {
        int k = 5;
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            for (int round = 0; round < 4; round++) {
                MemorySegment[] x = new MemorySegment[k];
                for (int i = 0; i < k; i++) bsp.pushReg(x[i] = Run.longs(p));
                bsp.sync();
                for (int i = 0; i < k; i++) for (int q = 0; q < p; q++) bsp.put(q, Run.of(100L * round + 10L * i + s), x[i], 8L * s, 8);
                for (int i : new int[] {3, 0, 4, 1, 2}) bsp.popReg(x[i]); // five numbers freed, in this order
                bsp.sync();
                for (int i = 0; i < k; i++) {
                    for (int q = 0; q < p; q++) assertEquals(100L * round + 10L * i + q, x[i].getAtIndex(JAVA_LONG, q));
                }
                // A voided superstep in which the processes take different counts: 2, or 7 (the stack's five and two appended).
                for (int i = 0; i < (s == p - 1 ? 7 : 2); i++) bsp.pushReg(Run.longs(p));
                IllegalStateException e = assertThrows(IllegalStateException.class, bsp::sync);
                assertTrue(e.getMessage().contains("pushReg called"), e.getMessage());
            }
            bsp.sync(); // usable after the voided superstep
            assertTrue(bsp.registry().sequenceNumbers() <= 5, "4 rounds of 5 areas took " + bsp.registry().sequenceNumbers() + " numbers");
        });
    }

    @ParameterizedTest
    @FieldSource("MULTI")
    void popOnOneProcessOnlyIsAnErrorEverywhere(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment x = Run.longs(1), y = Run.longs(1);
            bsp.pushReg(x);
            bsp.sync();
            if (bsp.pid() == p - 1) bsp.popReg(x);
            bsp.pushReg(y); // voided with the superstep's other registrations
            IllegalStateException e = assertThrows(IllegalStateException.class, bsp::sync);
            assertTrue(e.getMessage().contains("popReg called"), e.getMessage());
            // The state is as before the superstep, on every process: x registered, y not.
            bsp.put(0, Run.of(4), x, 0, 8);
            assertThrows(IllegalArgumentException.class, () -> bsp.put(0, Run.of(4), y, 0, 8));
            bsp.sync();
            if (bsp.pid() == 0) assertEquals(4, x.get(JAVA_LONG, 0));
        });
    }

    @ParameterizedTest
    @FieldSource("MULTI")
    void pushOnOneProcessOnlyIsAnErrorEverywhere(int p) {
        Run.bsp(p, bsp -> {
            if (bsp.pid() == 0) bsp.pushReg(Run.longs(1));
            IllegalStateException e = assertThrows(IllegalStateException.class, bsp::sync);
            assertTrue(e.getMessage().contains("pushReg called"), e.getMessage());
            bsp.sync(); // usable afterwards
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void popOfAnAreaPushedInTheSameSuperstepIsRefused(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment x = Run.longs(1);
            bsp.pushReg(x);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bsp.popReg(x));
            assertTrue(e.getMessage().contains("pushed in this superstep"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> bsp.pushReg(Run.longs(1).asReadOnly()));
            bsp.sync();
            bsp.popReg(x);
            bsp.sync();
        });
    }

    @ParameterizedTest
    @FieldSource("MULTI")
    void eachProcessRegistersItsOwnSizeAndPutsAreCheckedAgainstTheTargets(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            // pid 0 registers 8 longs, the others one: legal, the area is each one's own.
            MemorySegment x = Run.longs(s == 0 ? 8 : 1);
            bsp.pushReg(x);
            bsp.sync();
            if (s > 0) {
                bsp.put(0, Run.of(s), x, 8L * s, 8);                   // past the local 8 bytes: fine
                String m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.put(0, Run.of(1), x, 64, 8)).getMessage();
                assertTrue(m.contains("past the destination area of 64 bytes that pid 0 registered"), m);
                m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.put(s, Run.of(1), x, 8, 8)).getMessage();
                assertTrue(m.contains("area of 8 bytes that pid " + s + " registered"), m);
                bsp.get(0, x, 8L * 7, Run.longs(1), 8);
            }
            bsp.sync();
            if (s == 0) for (int q = 1; q < p; q++) assertEquals(q, x.getAtIndex(JAVA_LONG, q)); // p <= 8: one slot each
            bsp.popReg(x);
            bsp.sync();
        });
    }

    @ParameterizedTest
    @FieldSource("MULTI")
    void poppingDifferentRegistrationsIsAnErrorEverywhere(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment a = Run.longs(1), b = Run.longs(1);
            bsp.pushReg(a);
            bsp.pushReg(b);
            bsp.sync();
            bsp.popReg(bsp.pid() == 0 ? a : b); // one pop each, but not of the same registration
            IllegalStateException e = assertThrows(IllegalStateException.class, bsp::sync);
            assertTrue(e.getMessage().contains("popReg removes other registrations"), e.getMessage());
            // Ambiguous: pid 0 stacks a twice where the others register a and then b.
            MemorySegment c = Run.longs(1), d = Run.longs(1);
            bsp.pushReg(c);
            bsp.pushReg(bsp.pid() == 0 ? c : d);
            bsp.sync();
            bsp.popReg(c);
            e = assertThrows(IllegalStateException.class, bsp::sync);
            assertTrue(e.getMessage().contains("popReg removes other registrations"), e.getMessage());
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void aThousandRegistrationsOfTheSameAreaInOneSuperstep(int p) {
        Run.bsp(p, bsp -> {
            int n = 1000;
            MemorySegment a = Run.longs(n);
            for (int i = 0; i < n; i++) bsp.pushReg(a.asSlice(0, 8L * i)); // sizes 0 .. 999 longs, the last on top
            bsp.sync();
            bsp.put((bsp.pid() + 1) % p, Run.of(42), a, 8L * (n - 2), 8);
            assertThrows(IndexOutOfBoundsException.class, () -> bsp.put(0, Run.of(1), a, 8L * (n - 1), 8));
            bsp.sync();
            assertEquals(42, a.getAtIndex(JAVA_LONG, n - 2));
            for (int i = 0; i < n; i++) bsp.popReg(a);
            bsp.sync();
            assertThrows(IllegalArgumentException.class, () -> bsp.put(0, Run.of(1), a, 0, 0 + 8));
        });
    }

    /**
     * C LPF's {@code func_bsplib_pushpopreg_null}: NULL (a process with nothing to register) may be
     * pushed and popped, once or stacked, like any area; where some processes push NULL and the
     * others a real area, NULL never names the target of a put, hpput, get or hpget (C BSPlib:
     * BSPLIB_ERR_NULL_POINTER), the puts of the others land, and the pops work.
     */
    @ParameterizedTest
    @FieldSource("PROCS")
    void pushpopregNull(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            bsp.pushReg(MemorySegment.NULL); // once
            bsp.sync();
            bsp.popReg(MemorySegment.NULL);
            bsp.sync();
            bsp.pushReg(MemorySegment.NULL); // twice: stacked
            bsp.pushReg(MemorySegment.NULL);
            bsp.sync();
            bsp.popReg(MemorySegment.NULL);
            bsp.popReg(MemorySegment.NULL);
            bsp.sync();
            assertThrows(IllegalArgumentException.class, () -> bsp.popReg(MemorySegment.NULL));
            // Only pid 0 has something to register.
            MemorySegment x = s == 0 ? Run.longs(p) : MemorySegment.NULL, v = Run.of(s + 1), got = Run.longs(1);
            bsp.pushReg(x);
            bsp.sync();
            if (s > 0) {
                for (String m : new String[] {
                        assertThrows(IllegalArgumentException.class, () -> bsp.put(0, v, x, 0, 8)).getMessage(),
                        assertThrows(IllegalArgumentException.class, () -> bsp.put(0, v, 0, x, 0, 8)).getMessage(),
                        assertThrows(IllegalArgumentException.class, () -> bsp.hpput(0, v, x, 0, 8)).getMessage(),
                        assertThrows(IllegalArgumentException.class, () -> bsp.get(0, x, 0, got, 8)).getMessage(),
                        assertThrows(IllegalArgumentException.class, () -> bsp.hpget(0, x, 0, got, 0, 8)).getMessage()}) {
                    assertTrue(m.contains("at pid " + s + " of " + p) && m.contains("MemorySegment.NULL")
                            && m.contains("BSPLIB_ERR_NULL_POINTER"), m);
                }
            } else {
                for (int q = 1; q < p; q++) { // pid 0 names its real area; the others registered 0 bytes
                    int t = q;
                    String m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.put(t, v, x, 0, 8)).getMessage();
                    assertTrue(m.contains("area of 0 bytes that pid " + q + " registered"), m);
                }
                bsp.put(0, v, x, 0, 8); // itself: lands
            }
            bsp.sync();
            if (s == 0) {
                assertEquals(1, x.get(JAVA_LONG, 0), "only pid 0's own put landed");
                for (int i = 1; i < p; i++) assertEquals(0, x.getAtIndex(JAVA_LONG, i));
            }
            bsp.popReg(x);
            bsp.sync();
            assertThrows(IllegalArgumentException.class, () -> bsp.popReg(x));
        });
    }

    /** Errors found by a sync name its superstep counted from begin: the first sync is superstep 1, whatever the layer's own supersteps. */
    @ParameterizedTest
    @FieldSource("MULTI")
    void syncErrorsCountSuperstepsFromBegin(int p) {
        Run.bsp(p, bsp -> {
            if (bsp.pid() == 0) bsp.pushReg(Run.longs(1));
            String m = assertThrows(IllegalStateException.class, bsp::sync).getMessage();
            assertTrue(m.contains("Bsplib.sync at pid " + bsp.pid() + " of " + p + " (superstep 1 since begin)"), m);
            MemorySegment big = Run.longs(40_000);
            bsp.pushReg(big); // a full protocol that grows the region, register and queue: more core supersteps
            bsp.sync();
            bsp.put((bsp.pid() + 1) % p, big, big, 0, big.byteSize());
            bsp.sync();
            bsp.setTagsize(bsp.pid() == 0 ? 8 : 4);
            m = assertThrows(IllegalStateException.class, bsp::sync).getMessage();
            assertTrue(m.contains("(superstep 4 since begin): the processes disagree: tag size"), m);
        });
    }
}
