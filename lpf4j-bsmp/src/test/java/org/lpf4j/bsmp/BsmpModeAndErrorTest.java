package org.lpf4j.bsmp;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Wrong-mode use (LPF_ERR_BSMP_INVAL) and its recovery, bad arguments, close. */
@Timeout(60)
class BsmpModeAndErrorTest {
    static final int[] PROCS = Sections.PROCS;
    static final int[] MULTI = BsmpBudgetTest.MULTI;

    @ParameterizedTest
    @FieldSource("PROCS")
    void wrongModeIsRefusedWithoutEffectAndTheNextSyncRecovers(int p) {
        Sections.run(p, ctx -> {
            int s = ctx.pid(), next = (s + 1) % p;
            Sections.reserve(ctx, 1, 2, 0, 0);
            try (Bsmp bsmp = Bsmp.create(ctx, 16, 4, 2)) {
                bsmp.sendIntTag(next, 1, new byte[]{1});
                BsmpInvalidException moveInWrite = assertThrows(BsmpInvalidException.class, bsmp::move);
                assertTrue(moveInWrite.getMessage().contains("WRITE mode"), moveInWrite.getMessage());
                assertThrows(BsmpInvalidException.class, () -> bsmp.messages().iterator());
                bsmp.sendIntTag(next, 2, new byte[]{2}); // still usable after the refused move
                bsmp.sync();
                BsmpInvalidException sendInRead = assertThrows(BsmpInvalidException.class,
                        () -> bsmp.sendIntTag(next, 3, new byte[]{3}));
                assertTrue(sendInRead.getMessage().contains("READ mode"), sendInRead.getMessage());
                assertThrows(BsmpInvalidException.class, () -> bsmp.send(next, null, 0, null, 0, 0));
                assertEquals(2, bsmp.remainingMessages(), "the refused send queued nothing");
                int tags = 0;
                for (BsmpMessage m : bsmp.messages()) tags += m.tagInt();
                assertEquals(3, tags);
                bsmp.sync();
                assertEquals(Bsmp.Mode.WRITE, bsmp.mode());
                bsmp.sendIntTag(next, 4, new byte[0]);
                bsmp.sync();
                assertEquals(4, bsmp.move().tagInt());
                assertNull(bsmp.move());
                bsmp.sync();
            }
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void aSendThatFailsHalfWayInTheCoreInvalidatesUntilTheNextSync(int p) {
        Sections.run(p, ctx -> {
            int s = ctx.pid(), next = (s + 1) % p;
            // Room for one request: the second put of a slot send fails; the exchange of one
            // message needs one request per superstep.
            ctx.resizeMemoryRegister(Bsmp.REGISTER_ENTRIES + 1);
            ctx.resizeMessageQueue(1);
            ctx.sync();
            MemorySegment src = Arena.ofAuto().allocate(16);
            Memslot slot = ctx.registerLocal(src);
            try (Bsmp bsmp = Bsmp.create(ctx, 64, 8, 4)) {
                assertThrows(IllegalStateException.class, () -> bsmp.send(next, slot, 8, slot, 0, 8)); // not adjacent: two puts
                BsmpInvalidException e = assertThrows(BsmpInvalidException.class,
                        () -> bsmp.sendLongTag(next, 5, new byte[1]));
                assertTrue(e.getMessage().contains("next sync() recovers"), e.getMessage());
                assertEquals(0, bsmp.sentMessages());
                bsmp.sync();
                assertNull(bsmp.move(), "the half-queued message was never sent");
                bsmp.sync();
                bsmp.sendLongTag(next, 6, new byte[1]);
                bsmp.sync();
                assertEquals(6, bsmp.move().tagLong());
                bsmp.sync();
            }
            ctx.deregister(slot);
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void aPlainContextSyncDoesNotChangeTheMode(int p) {
        Sections.run(p, ctx -> {
            int s = ctx.pid(), next = (s + 1) % p;
            Sections.reserve(ctx, 1, 4, 1, 0);
            MemorySegment src = Arena.ofAuto().allocate(16, 8);
            src.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 40 + s);
            Memslot slot = ctx.registerLocal(src);
            try (Bsmp bsmp = Bsmp.create(ctx, 64, 8, 4)) {
                bsmp.send(next, slot, 0, slot, 0, 8);
                ctx.sync(); // executes the staging puts early; still WRITE
                assertEquals(Bsmp.Mode.WRITE, bsmp.mode());
                bsmp.sendLongTag(next, 50 + s, new byte[2]);
                bsmp.sync();
                ctx.sync(); // still READ, messages still there
                assertEquals(Bsmp.Mode.READ, bsmp.mode());
                long sum = 0;
                for (BsmpMessage m : bsmp.messages()) sum += m.tagLong();
                int prev = (s + p - 1) % p;
                assertEquals(90 + 2L * prev, sum);
                bsmp.sync();
            }
            ctx.deregister(slot);
        });
    }

    @Test
    void messageAccessorsCheckTheTagSize() {
        Lpf.root().exec(1, ctx -> {
            Sections.reserve(ctx, 1, 1, 0, 0);
            try (Bsmp bsmp = Bsmp.create(ctx, 8, 8, 1)) {
                bsmp.sendLongTag(0, -5, new byte[]{1, 2, 3});
                bsmp.sync();
                BsmpMessage m = bsmp.move();
                assertEquals(-5, m.tagLong());
                var e = assertThrows(IllegalStateException.class, m::tagInt);
                assertTrue(e.getMessage().contains("8 bytes, not 4"), e.getMessage());
                assertEquals(3, m.payloadBytes()[2]);
                assertEquals(2, m.buffer().get(java.lang.foreign.ValueLayout.JAVA_BYTE, m.payloadOffset() + 1));
                assertEquals(m.tagOffset() + 8, m.payloadOffset());
                assertTrue(m.toString().contains("from pid 0") && m.toString().contains("payload 3 B"), m.toString());
                assertTrue(bsmp.toString().contains("READ"), bsmp.toString());
                bsmp.sync();
            }
        });
    }

    @Test
    void badArgumentsNameTheCallAndHaveNoEffect() {
        Lpf.root().exec(2, ctx -> {
            Sections.reserve(ctx, 2, 4, 1, 0);
            MemorySegment src = Arena.ofAuto().allocate(16);
            Memslot slot = ctx.registerLocal(src);
            try (Bsmp bsmp = Bsmp.create(ctx, 64, 8, 4); Bsmp other = Bsmp.create(ctx, 8, 0, 1)) {
                var pid = assertThrows(IndexOutOfBoundsException.class, () -> bsmp.send(2, slot, 0, slot, 8, 8));
                assertTrue(pid.getMessage().contains("pid=2") && pid.getMessage().contains("[0, 2)"), pid.getMessage());
                assertThrows(IndexOutOfBoundsException.class, () -> bsmp.sendLongTag(-1, 0, new byte[0]));
                assertThrows(IllegalArgumentException.class, () -> bsmp.send(0, slot, 0, slot, 8, -1));
                assertThrows(IllegalArgumentException.class, () -> bsmp.send(0, slot, -1, slot, 8, 1));
                var tag = assertThrows(IndexOutOfBoundsException.class, () -> bsmp.send(0, slot, 9, slot, 0, 1));
                assertTrue(tag.getMessage().contains("tag [9, 17)"), tag.getMessage());
                var payload = assertThrows(IndexOutOfBoundsException.class, () -> bsmp.send(0, slot, 0, slot, 8, 9));
                assertTrue(payload.getMessage().contains("payload [8, 17)"), payload.getMessage());
                assertThrows(IllegalArgumentException.class, () -> bsmp.send(0, null, 0, slot, 8, 1));
                assertThrows(IllegalArgumentException.class, () -> bsmp.send(0, slot, 0, null, 0, 1));
                var wrongTag = assertThrows(IllegalArgumentException.class, () -> bsmp.sendIntTag(0, 1, new byte[0]));
                assertTrue(wrongTag.getMessage().contains("tags have 8"), wrongTag.getMessage());
                assertThrows(IllegalArgumentException.class,
                        () -> bsmp.send(0, MemorySegment.ofArray(new byte[7]), MemorySegment.NULL));
                assertEquals(0, bsmp.sentMessages(), "no effect");
                assertThrows(IllegalArgumentException.class, Bsmp::syncAll);
                assertThrows(IllegalArgumentException.class, () -> Bsmp.syncAll(bsmp, other, bsmp));
                assertThrows(IllegalArgumentException.class, () -> Bsmp.create(ctx, -1, 0, 0));
                Bsmp.syncAll(bsmp, other);
                assertNull(bsmp.move());
                Bsmp.syncAll(other, bsmp);
            }
            ctx.deregister(slot);
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void closeWithUnsyncedSendsIsRefusedWithoutEffect(int p) {
        Sections.run(p, ctx -> {
            int s = ctx.pid(), next = (s + 1) % p, prev = (s + p - 1) % p;
            Sections.reserve(ctx, 1, 2, 1, 0);
            MemorySegment src = Arena.ofAuto().allocate(16, 8);
            src.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 70 + s);
            Memslot slot = ctx.registerLocal(src);
            try (Bsmp bsmp = Bsmp.create(ctx, 64, 8, 2)) {
                bsmp.send(next, slot, 0, slot, 8, 8); // staged by a queued self-put
                var e = assertThrows(IllegalStateException.class, bsmp::close);
                assertTrue(e.getMessage().contains("1 message(s) sent in this superstep")
                        && e.getMessage().contains("sync() first"), e.getMessage());
                bsmp.sendLongTag(next, 80 + s, new byte[]{9}); // still fully usable
                assertThrows(IllegalStateException.class, bsmp::close);
                bsmp.sync();
                long tags = 0;
                for (BsmpMessage m : bsmp.messages()) tags += m.tagLong();
                assertEquals(150 + 2L * prev, tags, "both messages arrived after the refused close");
                bsmp.sync();
            } // close succeeds now
            ctx.deregister(slot);
        });
    }

    /** Counts the checks of all processes in one object: tagged {@code callers-jvm}, as the job's JVMs cannot share it. */
    @ParameterizedTest
    @FieldSource("MULTI")
    @Tag("callers-jvm")
    void afterAFailedSyncTheObjectIsUnusableAndCloseSucceedsWithSendsPending(int p) {
        AtomicInteger checked = new AtomicInteger();
        RuntimeException e = assertThrows(RuntimeException.class, () -> Sections.run(p, ctx -> {
            int s = ctx.pid();
            Sections.reserve(ctx, 1, 2, 0, 0);
            Bsmp bsmp = Bsmp.create(ctx, 16, 8, 2);
            bsmp.sendLongTag((s + 1) % p, s, new byte[] {1});
            if (s == 0) throw new IllegalStateException("pid 0 leaves the section");
            assertThrows(FatalException.class, bsmp::sync);
            var send = assertThrows(IllegalStateException.class, () -> bsmp.sendLongTag(0, 1, new byte[0]));
            assertTrue(send.getMessage().contains("a sync of this Bsmp failed"), send.getMessage());
            assertThrows(IllegalStateException.class, bsmp::move);
            assertThrows(IllegalStateException.class, bsmp::sync);
            assertEquals(1, bsmp.sentMessages(), "the unsynced send is still counted");
            bsmp.close(); // not refused: the object is dead
            bsmp.close();
            checked.incrementAndGet();
        }));
        assertTrue(causes(e).contains("pid 0 leaves the section"), causes(e));
        assertEquals(p - 1, checked.get(), "every other process saw the dead object");
    }

    private static String causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) b.append(c).append(" <- ");
        return b.toString();
    }

    @Test
    void aCopyingSendWhoseSegmentIsClosedSendsNothing() {
        Lpf.root().exec(2, ctx -> {
            Sections.reserve(ctx, 1, 2, 0, 0);
            int next = 1 - ctx.pid();
            Arena arena = Arena.ofConfined();
            MemorySegment tag = arena.allocate(8), payload = arena.allocate(4);
            arena.close();
            try (Bsmp bsmp = Bsmp.create(ctx, 64, 8, 2)) {
                assertThrows(IllegalStateException.class, () -> bsmp.send(next, tag, MemorySegment.ofArray(new byte[4])));
                assertThrows(IllegalStateException.class, () -> bsmp.send(next, MemorySegment.ofArray(new byte[8]), payload));
                assertEquals(0, bsmp.sentMessages(), "a failed copy counts no message");
                assertEquals(0, bsmp.sentBytes());
                bsmp.sync();
                assertNull(bsmp.move(), "nothing was delivered");
                bsmp.sync();
            }
        });
    }

    @Test
    void closeNeverFailsAndLaterUseIsAClearError() {
        Lpf.root().exec(3, ctx -> {
            Sections.reserve(ctx, 1, 1, 0, 0);
            Bsmp bsmp = Bsmp.create(ctx, 8, 8, 1);
            bsmp.close();
            bsmp.close(); // a second close does nothing
            var e = assertThrows(IllegalStateException.class, () -> bsmp.sendLongTag(0, 1, new byte[0]));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertThrows(IllegalStateException.class, bsmp::move);
            assertThrows(IllegalStateException.class, bsmp::sync);
            // Its four register entries are free again.
            try (Bsmp again = Bsmp.create(ctx, 8, 8, 1)) {
                again.sync();
                again.sync();
            }
        });
    }
}
