package org.lpf4j.bsplib;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sync's two paths: one core superstep when the superstep fits, the full protocol when a
 * stream spills or a registration is pushed; the same semantics on both (gets before puts,
 * messages by sender then send order), views that outlive new sends, remote bounds at the call.
 */
@Timeout(60)
class ProtocolTest {
    static final int[] PROCS = Run.PROCS;
    static final int[] MULTI = Run.MULTI;

    @ParameterizedTest
    @FieldSource("PROCS")
    void aSuperstepThatFitsIsOneCoreSuperstep(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment x = Run.longs(p);
            bsp.pushReg(x);
            long before = bsp.context().superstep();
            bsp.sync();
            assertTrue(bsp.context().superstep() - before >= 2, "a push takes the full protocol");
            for (int round = 0; round < 5; round++) {
                before = bsp.context().superstep();
                for (int q = 0; q < p; q++) {
                    bsp.put(q, Run.of(round), x, 8L * bsp.pid(), 8);
                    bsp.get(q, x, 0, Run.longs(1), 8);
                    bsp.send(q, null, Run.of(1, 2));
                }
                bsp.sync();
                assertEquals(1, bsp.context().superstep() - before, "round " + round);
            }
            before = bsp.context().superstep();
            bsp.sync();
            assertEquals(1, bsp.context().superstep() - before, "an empty superstep");
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void theFullProtocolKeepsTheSemanticsAndGrowsSoTheNextTimeFits(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid(), right = (s + 1) % p, n = 12_000; // 96 KB: beyond the first region
            MemorySegment x = Run.longs(n), got = Run.longs(1), big = Run.longs(n);
            x.set(JAVA_LONG, 0, 100 + s);
            bsp.pushReg(x);
            bsp.sync();
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < n; i++) big.setAtIndex(JAVA_LONG, i, 1000L * round + i);
                long before = bsp.context().superstep();
                bsp.get(right, x, 0, got, 8);                 // before the put below, on both paths
                big.set(JAVA_LONG, 0, 200 + s + round);
                bsp.put(right, big, x, 0, 8L * n);
                bsp.send(right, null, big, 8L * n);
                bsp.send(right, null, Run.of(-1));
                bsp.sync();
                long core = bsp.context().superstep() - before;
                if (round == 0) assertTrue(core >= 2, "a 96 KB stream does not fit the first region: " + core);
                else assertEquals(1, core, "the region grew: round " + round + " fits");
                int left = (s + p - 1) % p;
                // x at right was written last round by right's left neighbour: this process
                assertEquals(round == 0 ? 100 + right : 200 + s + round - 1, got.get(JAVA_LONG, 0), "round " + round);
                assertEquals(200 + left + round, x.get(JAVA_LONG, 0));
                assertEquals(1000L * round + n - 1, x.getAtIndex(JAVA_LONG, n - 1));
                assertEquals(2, bsp.qsize());
                BspMessage first = bsp.hpmove(), second = bsp.hpmove();
                assertEquals(8L * n, first.size(), "send order is kept");
                assertEquals(1000L * round + 5, first.payload().getAtIndex(JAVA_LONG, 5));
                assertEquals(-1, second.payload().get(JAVA_LONG, 0));
            }
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void messagesComeBySenderThenInSendOrder(int p) {
        Run.bsp(p, bsp -> {
            bsp.setTagsize(8);
            bsp.sync();
            for (int round = 0; round < 2; round++) {
                int size = round == 0 ? 8 : 40_000; // the second round spills: the full protocol
                for (int q = 0; q < p; q++) {
                    byte[] b = new byte[size];
                    b[0] = (byte) q; // the destination, so that a message delivered elsewhere shows
                    for (int i = 0; i < 3; i++) bsp.send(q, Run.of(bsp.pid() * 10L + i), MemorySegment.ofArray(b));
                }
                bsp.sync();
                MemorySegment tag = Run.longs(1);
                for (int r = 0; r < p; r++) {
                    for (int i = 0; i < 3; i++) {
                        assertEquals(size, bsp.getTag(tag));
                        assertEquals(r * 10L + i, tag.get(JAVA_LONG, 0), "round " + round);
                        MemorySegment first = MemorySegment.ofArray(new byte[1]);
                        bsp.move(first, 1);
                        assertEquals(bsp.pid(), first.get(JAVA_BYTE, 0), "round " + round + ": for this process");
                    }
                }
            }
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void hpmoveViewsOutliveTheNextSendsUntilTheSync(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            bsp.send(s, null, MemorySegment.ofArray(new byte[] {1, 2, 3}));
            bsp.sync();
            BspMessage m = bsp.hpmove();
            for (int i = 0; i < 20; i++) bsp.send(s, null, MemorySegment.ofArray(new byte[] {9, 9, 9, 9}));
            assertEquals(3, m.size());
            assertEquals(2, m.payload().get(JAVA_BYTE, 1), "the view still shows the message");
            bsp.sync();
            assertEquals(20, bsp.qsize());
        });
    }

    @ParameterizedTest
    @FieldSource("MULTI")
    void aPutPastTheRemoteAreaIsRefusedAtTheCallWithTheRemoteSize(int p) {
        Run.bsp(p, bsp -> {
            MemorySegment x = Run.longs(bsp.pid() == 1 ? 1 : 2); // the area is smaller at pid 1
            bsp.pushReg(x);
            bsp.sync();
            String m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.put(1, Run.of(1, 2), x, 0, 16)).getMessage();
            assertTrue(m.contains("past the destination area of 8 bytes that pid 1 registered"), m);
            m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.hpget(1, x, 8, Run.longs(1), 8)).getMessage();
            assertTrue(m.contains("past the source area of 8 bytes that pid 1 registered"), m);
            bsp.put(0, Run.of(1, 2), x, 0, 16);
            bsp.sync();
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void hundredsOfHpputsAndHpsendsOfGrowingSizesWithAPopInTheSameSuperstep(int p) {
        Run.bsp(p, bsp -> {
            int m = 100, n = m * (m + 1) / 2, right = (bsp.pid() + 1) % p;
            MemorySegment array = MemorySegment.ofArray(new int[n]), value = MemorySegment.ofArray(new int[m]);
            bsp.pushReg(array);
            bsp.setTagsize(4);
            bsp.sync();
            for (int i = 1, j = 0; i <= m; j += i, i++) {
                bsp.hpput(right, value, array, 4L * j, 4L * i);              // 20 KB in all: spills
                bsp.hpsend(right, MemorySegment.ofArray(new int[] {j}), value, 4L * i);
            }
            bsp.popReg(array); // still usable by the puts of this superstep
            value.fill((byte) 0x12); // unbuffered: what is there at the sync is sent
            bsp.sync();
            for (int k = 0; k < n; k++) assertEquals(0x12121212, array.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, k));
            int[] got = new int[n];
            for (int i = 1; i <= m; i++) {
                BspMessage msg = bsp.hpmove();
                int j = msg.tag().get(java.lang.foreign.ValueLayout.JAVA_INT, 0), len = (int) (msg.size() / 4);
                assertEquals(j, len * (len - 1) / 2, "a message's tag is where its payload starts");
                MemorySegment.copy(msg.payload(), 0, MemorySegment.ofArray(got), 4L * j, msg.size());
            }
            assertEquals(null, bsp.hpmove());
            for (int g : got) assertEquals(0x12121212, g);
        });
    }
}
