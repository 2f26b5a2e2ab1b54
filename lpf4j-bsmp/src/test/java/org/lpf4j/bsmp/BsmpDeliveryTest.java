package org.lpf4j.bsmp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Messages arrive intact and exactly once: many senders to one pid, empty tags and payloads, empty supersteps. */
@Timeout(60)
class BsmpDeliveryTest {
    static final int[] PROCS = Sections.PROCS;

    /** Payload size of message {@code i} from {@code s} to {@code d}: 0 … 22 bytes. */
    static int size(int s, int d, int i) { return (s * 7 + d * 3 + i * 5) % 23; }

    static byte content(int s, int d, int i, int j) { return (byte) (s * 31 + d * 17 + i * 7 + j); }

    @ParameterizedTest
    @FieldSource("PROCS")
    void severalSendsToEachPidInOneSuperstep(int p) {
        Sections.run(p, ctx -> {
            int s = ctx.pid(), k = 6;
            Sections.reserve(ctx, 1, (long) k * p, 2, 0);
            // Tags in a global slot, payloads in a local one: both kinds of source slot.
            MemorySegment tags = Arena.ofAuto().allocate(8L * k * p, 8);
            MemorySegment data = Arena.ofAuto().allocate(22L * k * p, 8);
            long[] offset = new long[k * p];
            long at = 0;
            for (int i = 0; i < k; i++) {
                for (int d = 0; d < p; d++) {
                    int m = i * p + d;
                    tags.setAtIndex(ValueLayout.JAVA_LONG, m, tag(s, d, i));
                    offset[m] = at;
                    for (int j = 0; j < size(s, d, i); j++) data.set(ValueLayout.JAVA_BYTE, at + j, content(s, d, i, j));
                    at += size(s, d, i);
                }
            }
            Memslot tagSlot = ctx.registerGlobal(tags);
            Memslot dataSlot = ctx.registerLocal(data);
            ctx.sync();
            try (Bsmp bsmp = Bsmp.create(ctx, 22L * k * p, Long.BYTES, (long) k * p)) {
                for (int round = 0; round < 2; round++) {
                    // Interleaved destinations: the records for one pid are not contiguous when staged.
                    for (int i = 0; i < k; i++) {
                        for (int d = 0; d < p; d++) {
                            int dst = round == 0 ? d : p - 1 - d, m = i * p + dst;
                            bsmp.send(dst, tagSlot, 8L * m, dataSlot, offset[m], size(s, dst, i));
                        }
                    }
                    assertEquals(k * p, bsmp.sentMessages());
                    bsmp.sync();
                    assertEquals(Bsmp.Mode.READ, bsmp.mode());
                    assertEquals(k * p, bsmp.remainingMessages());
                    boolean[][] seen = new boolean[p][k];
                    for (BsmpMessage msg = bsmp.move(); msg != null; msg = bsmp.move()) {
                        long tag = msg.tagLong();
                        int src = (int) (tag >>> 40), dst = (int) (tag >>> 20) & 0xFFFFF, i = (int) tag & 0xFFFFF;
                        assertEquals(src, msg.source(), "sender of " + Long.toHexString(tag));
                        assertEquals(s, dst, "destination recorded in tag " + Long.toHexString(tag));
                        assertTrue(!seen[src][i], "message " + i + " from " + src + " twice");
                        seen[src][i] = true;
                        assertEquals(size(src, s, i), msg.size());
                        MemorySegment payload = msg.payload();
                        for (int j = 0; j < msg.size(); j++) {
                            assertEquals(content(src, s, i, j), payload.get(ValueLayout.JAVA_BYTE, j), "byte " + j);
                        }
                    }
                    for (boolean[] row : seen) assertTrue(allTrue(row), Arrays.toString(row));
                    assertNull(bsmp.move(), "drained stays drained");
                    bsmp.sync();
                    assertEquals(Bsmp.Mode.WRITE, bsmp.mode());
                }
            }
            ctx.deregister(tagSlot);
            ctx.deregister(dataSlot);
        });
    }

    static long tag(int s, int d, int i) { return ((long) s << 40) | ((long) d << 20) | i; }

    static boolean allTrue(boolean[] b) {
        for (boolean x : b) if (!x) return false;
        return true;
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void tagSizeZeroAndZeroSizePayloads(int p) {
        Sections.run(p, ctx -> {
            int s = ctx.pid();
            Sections.reserve(ctx, 1, 4L * p, 0, 0);
            try (Bsmp bsmp = Bsmp.create(ctx, 8L * p, 0, 4L * p)) {
                byte[] one = {(byte) s};
                for (int d = 0; d < p; d++) {
                    for (int i = 0; i < 3; i++) bsmp.send(d, null, 0, null, 0, 0); // nothing at all
                    bsmp.send(d, MemorySegment.NULL, MemorySegment.ofArray(one)); // tag size 0, one byte
                }
                bsmp.sync();
                int[] empty = new int[p], full = new int[p];
                for (BsmpMessage m : bsmp.messages()) {
                    assertEquals(0, m.tag().byteSize());
                    if (m.size() == 0) {
                        assertEquals(0, m.payload().byteSize());
                        empty[m.source()]++;
                    } else {
                        assertEquals(1, m.size());
                        assertEquals((byte) m.source(), m.payload().get(ValueLayout.JAVA_BYTE, 0));
                        full[m.source()]++;
                    }
                }
                for (int src = 0; src < p; src++) {
                    assertEquals(3, empty[src], "empty messages from " + src);
                    assertEquals(1, full[src], "one-byte messages from " + src);
                }
                bsmp.sync();
            }
            try (Bsmp bsmp = Bsmp.create(ctx, 0, 4, p)) { // tag only: bufferSize 0
                bsmp.sendIntTag((s + 1) % p, 1000 + s, new byte[0]);
                bsmp.sync();
                BsmpMessage m = bsmp.move();
                assertEquals(1000 + (s + p - 1) % p, m.tagInt());
                assertEquals(0, m.size());
                assertNull(bsmp.move());
                bsmp.sync();
            }
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void emptySupersteps(int p) {
        Sections.run(p, ctx -> {
            int s = ctx.pid();
            Sections.reserve(ctx, 1, p, 0, 0);
            try (Bsmp bsmp = Bsmp.create(ctx, 16L * p, 8, p)) {
                for (int t = 0; t < 6; t++) {
                    // t even: nobody sends; t odd: only even pids send, to everybody.
                    boolean sends = t % 2 == 1 && s % 2 == 0;
                    if (sends) for (int d = 0; d < p; d++) bsmp.sendLongTag(d, t, new byte[]{(byte) t});
                    bsmp.sync();
                    int expected = t % 2 == 0 ? 0 : (p + 1) / 2;
                    assertEquals(expected, bsmp.remainingMessages(), "superstep " + t);
                    int got = 0;
                    for (BsmpMessage m = bsmp.move(); m != null; m = bsmp.move()) {
                        assertEquals(t, m.tagLong());
                        assertEquals(0, m.source() % 2);
                        got++;
                    }
                    assertEquals(expected, got);
                    bsmp.sync();
                }
            }
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void movedMessagesAreTheReusedObjectAndAligned(int p) {
        Sections.run(p, ctx -> {
            Sections.reserve(ctx, 1, 2L * p, 0, 0);
            try (Bsmp bsmp = Bsmp.create(ctx, 16L * p, 3, 2L * p)) {
                for (int d = 0; d < p; d++) {
                    bsmp.send(d, MemorySegment.ofArray(new byte[]{1, 2, 3}), MemorySegment.ofArray(new byte[5]));
                    bsmp.send(d, MemorySegment.ofArray(new byte[]{4, 5, 6}), MemorySegment.ofArray(new long[]{-1}));
                }
                bsmp.sync();
                BsmpMessage first = bsmp.move();
                MemorySegment firstTag = first.tag();
                for (BsmpMessage m = first; m != null; m = bsmp.move()) {
                    assertSame(first, m, "move() reuses one message object");
                    assertTrue(m.payload().isReadOnly() && m.tag().isReadOnly());
                    assertEquals(0, m.payload().address() % 8, "payload aligned");
                    assertEquals(0, m.tag().address() % 8, "tag aligned");
                    if (m.size() == 8) assertEquals(-1L, m.payload().get(ValueLayout.JAVA_LONG, 0));
                }
                byte t0 = firstTag.get(ValueLayout.JAVA_BYTE, 0);
                assertTrue(t0 == 1 || t0 == 4, "a view taken earlier still shows its message until the sync");
                bsmp.sync();
            }
        });
    }
}
