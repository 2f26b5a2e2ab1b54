package org.lpf4j.bsmp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Memslot;
import org.lpf4j.spi.kit.CountingContext;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-superstep budget: filled exactly, exceeded by one byte or one message, at the sender and the receiver; out of memory at create. */
@Timeout(60)
class BsmpBudgetTest {
    static final int[] PROCS = Sections.PROCS;
    static final int[] MULTI = java.util.Arrays.stream(new int[] {2, 3, 4, 5, 8})
            .filter(p -> p <= java.util.Arrays.stream(Sections.PROCS).max().orElseThrow()).toArray();

    static MemorySegment filled(int size, int value) {
        MemorySegment m = MemorySegment.ofArray(new byte[size]);
        m.fill((byte) value);
        return m;
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void bufferFilledExactlyThenOverflowByOneByteAndByOneMessage(int p) {
        Sections.run(p, ctx -> {
            int s = ctx.pid(), next = (s + 1) % p;
            Sections.reserve(ctx, 1, 4, 0, 0);
            try (Bsmp bsmp = Bsmp.create(ctx, 100, 4, 4)) {
                bsmp.sendIntTag(next, 10, filled(10, s));
                bsmp.sendIntTag(next, 20, filled(20, s));
                bsmp.sendIntTag(next, 30, filled(30, s));
                // 60 bytes sent: 41 more is one byte too many; the failed send has no effect.
                assertThrows(BsmpFullException.class, () -> bsmp.sendIntTag(next, 41, filled(41, s)));
                assertEquals(3, bsmp.sentMessages());
                assertEquals(60, bsmp.sentBytes());
                bsmp.sendIntTag(next, 40, filled(40, s)); // exactly 100 bytes in exactly 4 messages
                assertEquals(100, bsmp.sentBytes());
                // One message too many, even an empty one.
                BsmpFullException e = assertThrows(BsmpFullException.class, () -> bsmp.sendIntTag(next, 0, new byte[0]));
                assertTrue(e.getMessage().contains("maxMessages=4"), e.getMessage());
                assertEquals(4, bsmp.sentMessages());
                bsmp.sync();
                int prev = (s + p - 1) % p, count = 0;
                long bytes = 0;
                for (BsmpMessage m : bsmp.messages()) {
                    assertEquals(prev, m.source());
                    assertEquals(m.tagInt(), m.size(), "tag names the size");
                    for (long j = 0; j < m.size(); j++) assertEquals((byte) prev, m.payload().get(ValueLayout.JAVA_BYTE, j));
                    count++;
                    bytes += m.size();
                }
                assertEquals(4, count);
                assertEquals(100, bytes);
                bsmp.sync();
                // A fresh superstep has the whole budget again: one message of bufferSize + 1 fails, bufferSize fits.
                assertThrows(BsmpFullException.class, () -> bsmp.sendIntTag(next, 101, filled(101, s)));
                bsmp.sendIntTag(next, 100, filled(100, s));
                bsmp.sync();
                BsmpMessage m = bsmp.move();
                assertEquals(100, m.size());
                assertNull(bsmp.move());
                bsmp.sync();
            }
        });
    }

    @ParameterizedTest
    @FieldSource("MULTI")
    void receiverSentMoreThanItsBudgetGetsFullAndRecovers(int p) {
        Sections.run(p, ctx -> {
            int s = ctx.pid();
            Sections.reserve(ctx, 1, 2, 0, 0);
            try (Bsmp bsmp = Bsmp.create(ctx, 64, 8, 2)) {
                // Every sender stays within its own budget, but pid 0 is sent 2p > 2 messages.
                bsmp.sendLongTag(0, s, filled(8, s));
                bsmp.sendLongTag(0, s, filled(8, s));
                if (s == 0) {
                    BsmpFullException e = assertThrows(BsmpFullException.class, bsmp::sync);
                    assertTrue(e.getMessage().contains("pid 0 was sent " + 2 * p + " messages"), e.getMessage());
                } else {
                    bsmp.sync();
                }
                assertEquals(Bsmp.Mode.READ, bsmp.mode());
                assertNull(bsmp.move(), "nothing readable: pid 0 dropped its messages, the others got none");
                bsmp.sync();
                // Next WRITE superstep works as usual.
                bsmp.sendLongTag((s + 1) % p, 1000 + s, filled(64, 7));
                bsmp.sync();
                BsmpMessage m = bsmp.move();
                assertEquals(1000 + (s + p - 1) % p, m.tagLong());
                assertEquals(64, m.size());
                assertNull(bsmp.move());
                bsmp.sync();
            }
        });
    }

    @ParameterizedTest
    @FieldSource("MULTI")
    void receiverSentMorePayloadBytesThanItsBufferGetsFullThoughTheMessageCountFits(int p) {
        Sections.run(p, ctx -> {
            int s = ctx.pid();
            Sections.reserve(ctx, 1, 4, 0, 0);
            try (Bsmp bsmp = Bsmp.create(ctx, 8, 0, 4)) {
                // pid 0 and pid 1 each send 8 bytes to pid 0: two messages of four allowed, 16 bytes of 8.
                if (s <= 1) bsmp.send(0, MemorySegment.NULL, filled(8, s));
                if (s == 0) {
                    BsmpFullException e = assertThrows(BsmpFullException.class, bsmp::sync);
                    assertTrue(e.getMessage().contains("was sent 2 messages with 16 payload bytes"), e.getMessage());
                } else {
                    bsmp.sync();
                }
                assertNull(bsmp.move(), "pid 0 dropped the superstep's messages, the others got none");
                bsmp.sync();
                // The whole budget from one sender fits.
                if (s == 1) bsmp.send(0, MemorySegment.NULL, filled(8, 5));
                bsmp.sync();
                if (s == 0) {
                    BsmpMessage m = bsmp.move();
                    assertEquals(1, m.source());
                    assertEquals(8, m.size());
                    assertEquals((byte) 5, m.payload().get(ValueLayout.JAVA_BYTE, 7));
                }
                assertNull(bsmp.move());
                bsmp.sync();
            }
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void aSendFromSlotsRefusedAsFullQueuesNoPut(int p) {
        Lpf.root().exec(p, real -> {
            int s = real.pid(), next = (s + 1) % p;
            Sections.reserve(real, 1, 2, 1, 0);
            MemorySegment area = MemorySegment.ofArray(new long[4]);
            for (int i = 0; i < 4; i++) area.setAtIndex(ValueLayout.JAVA_LONG, i, 100L * s + i);
            Memslot slot = real.registerLocal(area);
            CountingContext ctx = new CountingContext(real);
            try (Bsmp bsmp = Bsmp.create(ctx, 16, 8, 2)) {
                ctx.reset();
                bsmp.send(next, slot, 0, slot, 8, 8);
                int puts = ctx.puts();
                // A payload one byte over what is left, then a third message: refused before any put.
                assertThrows(BsmpFullException.class, () -> bsmp.send(next, slot, 0, slot, 8, 9));
                bsmp.send(next, slot, 16, slot, 24, 8);
                assertThrows(BsmpFullException.class, () -> bsmp.send(next, slot, 0, slot, 8, 0));
                assertEquals(2 * puts, ctx.puts(), "the refused sends queued no put");
                assertEquals(2, bsmp.sentMessages());
                bsmp.sync();
                int prev = (s + p - 1) % p;
                long tags = 0, payloads = 0;
                int count = 0;
                for (BsmpMessage m : bsmp.messages()) {
                    assertEquals(8, m.size());
                    tags += m.tagLong();
                    payloads += m.payload().get(ValueLayout.JAVA_LONG, 0);
                    count++;
                }
                assertEquals(2, count);
                assertEquals(200L * prev + 2, tags);
                assertEquals(200L * prev + 4, payloads);
                bsmp.sync();
            }
            real.deregister(slot);
        });
    }

    @Test
    void outOfMemoryAtCreateRegistersNothing() {
        Lpf.root().exec(2, real -> {
            CountingContext ctx = new CountingContext(real);
            ctx.resizeMemoryRegister(Bsmp.REGISTER_ENTRIES); // exactly one object's worth
            ctx.resizeMessageQueue(Bsmp.queueEntries(2, 1));
            ctx.sync();
            ctx.reset();
            assertThrows(LpfOutOfMemoryException.class, () -> Bsmp.create(ctx, 1L << 50, 8, 1));
            assertThrows(LpfOutOfMemoryException.class, () -> Bsmp.create(ctx, Long.MAX_VALUE - 8, 8, 2));
            assertThrows(LpfOutOfMemoryException.class, () -> Bsmp.create(ctx, 1, Long.MAX_VALUE, 1));
            assertThrows(LpfOutOfMemoryException.class, () -> Bsmp.create(ctx, 1, 1, Integer.MAX_VALUE));
            assertEquals(0, ctx.globalRegistrations() + ctx.localRegistrations(), "nothing registered");
            assertEquals(0, ctx.syncs(), "no sync made");
            // The register still has room for all four entries: the failures took none.
            try (Bsmp bsmp = Bsmp.create(ctx, 8, 0, 1)) {
                bsmp.send(1 - ctx.pid(), MemorySegment.NULL, filled(8, 1));
                bsmp.sync();
                assertEquals(8, bsmp.move().size());
                bsmp.sync();
            }
        });
    }

    @Test
    void fullRegisterAtCreateLeavesNothingRegistered() {
        Context root = Lpf.root();
        CountingContext ctx = new CountingContext(root);
        ctx.resizeMemoryRegister(Bsmp.REGISTER_ENTRIES - 1);
        ctx.resizeMessageQueue(Bsmp.queueEntries(1, 1));
        ctx.sync();
        assertThrows(IllegalStateException.class, () -> Bsmp.create(ctx, 8, 8, 1));
        assertEquals(ctx.globalRegistrations(), ctx.deregistrations(), "undone");
        ctx.resizeMemoryRegister(Bsmp.REGISTER_ENTRIES);
        ctx.sync();
        try (Bsmp bsmp = Bsmp.create(ctx, 8, 8, 1)) {
            assertEquals(Bsmp.Mode.WRITE, bsmp.mode());
        }
        ctx.resizeMemoryRegister(0);
        ctx.resizeMessageQueue(0);
        ctx.sync();
    }
}
