package org.lpf4j.bsplib;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * send/hpsend, qsize, get_tag, move, hpmove and set_tagsize: delivery in the next superstep,
 * counts and bytes, empty queue, tag size changing at the sync, collective tag size.
 */
@Timeout(60)
class MessagesTest {
    static final int[] PROCS = Run.PROCS;
    static final int[] MULTI = Run.MULTI;

    @ParameterizedTest
    @FieldSource("PROCS")
    void noMessagesGiveAnEmptyQueue(int p) {
        Run.bsp(p, bsp -> {
            bsp.sync();
            assertEquals(0, bsp.qsize());
            assertEquals(0, bsp.qsizeBytes());
            assertEquals(-1, bsp.getTag(null));
            assertNull(bsp.hpmove());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> bsp.move(Run.longs(1)));
            assertTrue(e.getMessage().contains("Bsplib.move") && e.getMessage().contains("empty"), e.getMessage());
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void oneMessageArrivesInTheNextSuperstepOnly(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            assertEquals(0, bsp.setTagsize(8));
            bsp.sync(); // the tag size applies from here
            assertEquals(8, bsp.tagSize());
            MemorySegment payload = Run.of(10L * s, 10L * s + 1, 10L * s + 2);
            bsp.send((s + 1) % p, Run.of(77L + s), payload, 24);
            payload.fill((byte) 0); // buffered: the copy was made at the call
            assertEquals(0, bsp.qsize(), "not before the sync");
            bsp.sync();
            int from = (s + p - 1) % p;
            assertEquals(1, bsp.qsize());
            assertEquals(24, bsp.qsizeBytes());
            MemorySegment tag = Run.longs(1);
            assertEquals(24, bsp.getTag(tag));
            assertEquals(77L + from, tag.get(JAVA_LONG, 0));
            assertEquals(24, bsp.getTag(tag), "get_tag does not remove");
            MemorySegment got = Run.longs(3);
            assertEquals(24, bsp.move(got));
            for (int i = 0; i < 3; i++) assertEquals(10L * from + i, got.getAtIndex(JAVA_LONG, i));
            assertEquals(0, bsp.qsize());
            assertEquals(-1, bsp.getTag(tag));
            bsp.sync();
            assertEquals(0, bsp.qsize(), "messages live one superstep");
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void manyMessagesToEveryProcessWithCountsAndBytes(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid(), k = 5;
            bsp.setTagsize(4);
            bsp.sync();
            for (int round = 0; round < 3; round++) {
                for (int q = 0; q < p; q++) {
                    for (int i = 0; i < k; i++) {
                        int len = (s + q + i + round) % 7; // 0 … 6 bytes, some empty
                        byte[] b = new byte[len];
                        for (int j = 0; j < len; j++) b[j] = (byte) (s * 16 + i + j);
                        bsp.send(q, MemorySegment.ofArray(new int[] {s << 16 | i}), MemorySegment.ofArray(b), len);
                    }
                }
                bsp.sync();
                long bytes = 0;
                for (int r = 0; r < p; r++) for (int i = 0; i < k; i++) bytes += (r + s + i + round) % 7;
                assertEquals((long) k * p, bsp.qsize());
                assertEquals(bytes, bsp.qsizeBytes());
                boolean[][] seen = new boolean[p][k];
                MemorySegment tag = MemorySegment.ofArray(new int[1]), buf = MemorySegment.ofArray(new byte[8]);
                for (long n = bsp.qsize(); n > 0; n--) {
                    long len = bsp.getTag(tag);
                    int t = tag.get(JAVA_INT, 0), r = t >>> 16, i = t & 0xFFFF;
                    assertFalse(seen[r][i], "twice: " + r + "/" + i);
                    seen[r][i] = true;
                    assertEquals((r + s + i + round) % 7, len);
                    bytes -= len;
                    assertEquals(len, bsp.move(buf));
                    for (int j = 0; j < len; j++) assertEquals((byte) (r * 16 + i + j), buf.get(JAVA_BYTE, j));
                    assertEquals(bytes, bsp.qsizeBytes());
                }
                assertEquals(-1, bsp.getTag(tag));
            }
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void emptyTagsAndEmptyPayloads(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            for (int q = 0; q < p; q++) {
                bsp.send(q, null, null, 0);                            // tag size 0, no payload
                bsp.send(q, null, MemorySegment.ofArray(new byte[] {(byte) s}));
            }
            bsp.sync();
            assertEquals(2L * p, bsp.qsize());
            assertEquals(p, bsp.qsizeBytes());
            int empty = 0, sum = 0;
            for (BspMessage m; (m = bsp.hpmove()) != null; ) {
                assertEquals(0, m.tag().byteSize());
                if (m.size() == 0) empty++;
                else sum += m.payload().get(JAVA_BYTE, 0);
            }
            assertEquals(p, empty);
            assertEquals(p * (p - 1) / 2, sum);
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void moveTruncatesToTheReceptionBytesAndHpmoveGivesReadOnlyViews(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            bsp.setTagsize(8);
            bsp.sync();
            bsp.send(s, Run.of(1), Run.of(5, 6, 7));
            bsp.send(s, Run.of(2), Run.of(8, 9));
            bsp.sync();
            MemorySegment one = Run.longs(3);
            assertEquals(24, bsp.getTag(null));
            assertEquals(8, bsp.move(one, 8), "at most reception bytes");
            assertEquals(5, one.getAtIndex(JAVA_LONG, 0));
            assertEquals(0, one.getAtIndex(JAVA_LONG, 1));
            BspMessage m = bsp.hpmove();
            assertEquals(2, m.tag().get(JAVA_LONG, 0));
            assertEquals(16, m.size());
            assertEquals(9, m.payload().getAtIndex(JAVA_LONG, 1));
            assertTrue(m.payload().isReadOnly() && m.tag().isReadOnly());
            assertNull(bsp.hpmove());
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void hpsendReadsTagAndPayloadAtTheSync(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid(), n = 200;
            bsp.setTagsize(8);
            bsp.sync();
            MemorySegment tags = Run.longs(n), data = Run.longs(n);
            for (int i = 0; i < n; i++) bsp.hpsend((s + i) % p, tags.asSlice(8L * i, 8), data.asSlice(8L * i, 8), 8);
            for (int i = 0; i < n; i++) { // written after the calls, before the sync
                tags.setAtIndex(JAVA_LONG, i, s);
                data.setAtIndex(JAVA_LONG, i, 1000L * s + i);
            }
            bsp.sync();
            long count = 0;
            MemorySegment tag = Run.longs(1), v = Run.longs(1);
            while (bsp.getTag(tag) >= 0) {
                long r = tag.get(JAVA_LONG, 0);
                bsp.move(v);
                long i = v.get(JAVA_LONG, 0) - 1000L * r;
                assertEquals(s, (r + i) % p, "message " + i + " of pid " + r + " came here");
                count++;
            }
            long expect = 0;
            for (int r = 0; r < p; r++) for (int i = 0; i < n; i++) if ((r + i) % p == s) expect++;
            assertEquals(expect, count);
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void theTagSizeChangesAtTheSyncAndMessagesKeepTheirs(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid();
            assertEquals(0, bsp.setTagsize(4));
            assertEquals(0, bsp.tagSize(), "not before the sync");
            assertEquals(0, bsp.setTagsize(8), "still the old one, until the sync");
            bsp.send(s, null, Run.of(1)); // sent with tag size 0
            bsp.sync();
            assertEquals(8, bsp.tagSize());
            assertEquals(0, bsp.queueTagSize(), "the queue keeps the tag size it was sent with");
            BspMessage m = bsp.hpmove();
            assertEquals(0, m.tag().byteSize());
            bsp.send(s, Run.of(0x1122334455667788L), Run.of(2));
            assertEquals(8, bsp.setTagsize(2));
            bsp.sync();
            assertEquals(8, bsp.queueTagSize());
            MemorySegment tag = Run.longs(1);
            assertEquals(8, bsp.getTag(tag));
            assertEquals(0x1122334455667788L, tag.get(JAVA_LONG, 0));
            assertEquals(2, bsp.tagSize());
            assertThrows(IndexOutOfBoundsException.class, () -> bsp.send(s, MemorySegment.ofArray(new byte[1]), null, 0));
        });
    }

    @ParameterizedTest
    @FieldSource("MULTI")
    void differentTagSizesAreAnErrorEverywhere(int p) {
        Run.bsp(p, bsp -> {
            bsp.setTagsize(bsp.pid() == 1 ? 4 : 8);
            IllegalStateException e = assertThrows(IllegalStateException.class, bsp::sync);
            assertTrue(e.getMessage().contains("tag size"), e.getMessage());
            assertEquals(0, bsp.tagSize(), "unchanged");
            bsp.setTagsize(4);
            bsp.sync();
            assertEquals(4, bsp.tagSize());
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void sendErrorsNameTheCall(int p) {
        Run.bsp(p, bsp -> {
            String m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.send(p, null, null, 0)).getMessage();
            assertTrue(m.contains("Bsplib.send(pid=" + p) && m.contains("out of range"), m);
            m = assertThrows(IndexOutOfBoundsException.class, () -> bsp.hpsend(0, null, Run.of(1), 16)).getMessage();
            assertTrue(m.contains("Bsplib.hpsend") && m.contains("payload has only 8 bytes"), m);
            assertThrows(IllegalArgumentException.class, () -> bsp.setTagsize(-1));
            bsp.sync();
            assertEquals(0, bsp.qsize());
        });
    }

    /** send/hpsend with tag and payload offsets, getTag and move at an offset, hpmove into a reused view. */
    @ParameterizedTest
    @FieldSource("PROCS")
    void offsetFormsOfSendGetTagMoveAndHpmove(int p) {
        Run.bsp(p, bsp -> {
            int s = bsp.pid(), right = (s + 1) % p, left = (s + p - 1) % p;
            bsp.setTagsize(8);
            bsp.sync();
            MemorySegment tags = Run.of(-1, 70 + s, 80 + s), data = Run.of(-1, -2, 10L * s, 10L * s + 1, 10L * s + 2);
            bsp.send(right, tags, 8, data, 16, 24);
            bsp.hpsend(right, tags, 16, data, 24, 16);
            data.setAtIndex(JAVA_LONG, 3, 99); // hpsend reads at the sync, send copied at the call
            assertThrows(IndexOutOfBoundsException.class, () -> bsp.send(right, tags, 17, data, 0, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> bsp.send(right, tags, 0, data, 16, 25));
            assertThrows(IllegalArgumentException.class, () -> bsp.send(right, tags, -8, data, 0, 8));
            bsp.sync();
            assertEquals(2, bsp.qsize());
            MemorySegment tag = Run.longs(3), got = Run.longs(4);
            assertEquals(24, bsp.getTag(tag, 16));
            assertEquals(70 + left, tag.getAtIndex(JAVA_LONG, 2));
            assertEquals(0, tag.getAtIndex(JAVA_LONG, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> bsp.getTag(tag, 17));
            assertThrows(IndexOutOfBoundsException.class, () -> bsp.move(got, 16, 24), "24 bytes past offset 16 of 32");
            assertEquals(24, bsp.move(got, 8, 24));
            assertEquals(0, got.getAtIndex(JAVA_LONG, 0));
            for (int i = 0; i < 3; i++) assertEquals(10L * left + i, got.getAtIndex(JAVA_LONG, 1 + i));
            BspMessageView view = new BspMessageView();
            assertEquals(16, bsp.hpmove(view));
            assertEquals(8, view.tagSize());
            assertEquals(16, view.payloadSize());
            assertEquals(80 + left, view.segment().get(JAVA_LONG, view.tagOffset()));
            assertEquals(99, view.segment().get(JAVA_LONG, view.payloadOffset()));
            assertEquals(10L * left + 2, view.segment().get(JAVA_LONG, view.payloadOffset() + 8));
            assertTrue(view.segment().isReadOnly());
            assertEquals(-1, bsp.hpmove(view), "the queue is empty");
            assertEquals(0, bsp.qsize());
            assertEquals(0, bsp.qsizeBytes());
        });
    }
}
