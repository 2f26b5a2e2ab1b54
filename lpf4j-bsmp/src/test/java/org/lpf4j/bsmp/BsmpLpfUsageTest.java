package org.lpf4j.bsmp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Memslot;
import org.lpf4j.spi.kit.CountingContext;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What each call does with the LPF context — registrations, requests per superstep, syncs — is
 * what its Javadoc's "LPF usage" block says; syncAll over three objects shares the supersteps.
 */
@Timeout(60)
class BsmpLpfUsageTest {
    static final int[] PROCS = Sections.PROCS;

    @ParameterizedTest
    @FieldSource("PROCS")
    void eachCallUsesWhatItsJavadocSays(int p) {
        Sections.run(p, real -> {
            CountingContext ctx = new CountingContext(real);
            int s = ctx.pid(), k = 3;
            long maxMessages = (long) k * p;
            Sections.reserve(ctx, 1, maxMessages, 1, 0);
            MemorySegment src = Arena.ofAuto().allocate(16, 8);
            src.set(ValueLayout.JAVA_LONG, 0, 66); // tag
            src.set(ValueLayout.JAVA_LONG, 8, 77); // payload
            Memslot slot = ctx.registerLocal(src);
            ctx.reset();

            Bsmp bsmp = Bsmp.create(ctx, 8 * maxMessages, 8, maxMessages);
            assertEquals(3, ctx.globalRegistrations(), "create: three global slots");
            assertEquals(1, ctx.localRegistrations(), "create: one local slot");
            assertEquals(1, ctx.syncs(), "create: one sync");
            assertEquals(0, ctx.puts() + ctx.gets(), "create: no message");

            for (int round = 0; round < 2; round++) {
                ctx.reset();
                for (int d = 0; d < p; d++) {
                    bsmp.send(d, slot, 0, slot, 8, 8);      // payload right after the tag: one put
                    bsmp.send(d, slot, 0, null, 0, 0);      // tag only: one put
                    bsmp.sendLongTag(d, 5, new byte[3]);    // copied: no put
                }
                assertEquals(2 * p, ctx.puts(), "send: a put per non-empty tag or payload, one for adjacent ones");
                ctx.reset();
                bsmp.sync(); // deliver and drop this round, then the same with separate tag and payload
                bsmp.sync();
                ctx.reset();
                for (int d = 0; d < p; d++) {
                    bsmp.send(d, slot, 8, slot, 0, 8);      // payload before the tag: two puts
                    bsmp.send(d, slot, 0, null, 0, 0);
                    bsmp.sendLongTag(d, 5, new byte[3]);
                }
                assertEquals(3 * p, ctx.puts(), "send: a put per non-empty tag or payload");
                assertEquals(0, ctx.syncs() + ctx.gets(), "send: no sync, no get");

                ctx.reset();
                bsmp.sync();
                assertEquals(2, ctx.syncs(), "sync from WRITE: two syncs");
                assertEquals(p, ctx.puts(), "one summary put per destination with messages");
                assertEquals(p, ctx.gets(), "one get per sender");
                assertTrue(ctx.maxQueued() <= Bsmp.queueEntries(p, maxMessages), "within queueEntries");

                ctx.reset();
                int moved = 0;
                for (BsmpMessage m = bsmp.move(); m != null; m = bsmp.move()) {
                    assertEquals(m.size() == 3 ? 5 : m.size() == 8 ? 77 : 66, m.tagLong());
                    if (m.size() == 8) assertEquals(66, m.payload().get(ValueLayout.JAVA_LONG, 0));
                    moved++;
                }
                assertEquals(k * p, moved);
                assertEquals(0, ctx.syncs() + ctx.puts() + ctx.gets(), "move: nothing");

                bsmp.sync();
                assertEquals(1, ctx.syncs(), "sync from READ: one sync");
                assertEquals(0, ctx.puts() + ctx.gets(), "sync from READ: no message");
            }
            // Sparse traffic: one destination, so one summary and (at that destination) one get.
            ctx.reset();
            bsmp.sendLongTag((s + 1) % p, 1, new byte[1]);
            bsmp.sync();
            assertEquals(1, ctx.puts());
            assertEquals(1, ctx.gets());
            bsmp.sync();

            ctx.reset();
            bsmp.close();
            assertEquals(4, ctx.deregistrations(), "close: four slots");
            assertEquals(0, ctx.syncs() + ctx.puts() + ctx.gets(), "close: no sync, no message");
            ctx.deregister(slot);
        });
    }

    @ParameterizedTest
    @FieldSource("PROCS")
    void syncAllOverThreeObjectsSharesTheSupersteps(int p) {
        Sections.run(p, real -> {
            CountingContext ctx = new CountingContext(real);
            int s = ctx.pid();
            Sections.reserve(ctx, 3, 2L * p, 0, 0);
            try (Bsmp a = Bsmp.create(ctx, 0, 0, p);
                 Bsmp b = Bsmp.create(ctx, 8L * p, 4, 2L * p);
                 Bsmp c = Bsmp.create(ctx, 16L * p, 8, p)) {
                for (int t = 0; t < 3; t++) {
                    for (int d = 0; d < p; d++) {
                        a.send(d, MemorySegment.NULL, MemorySegment.NULL);
                        b.sendIntTag(d, 10 * s + t, new byte[]{(byte) d});
                        b.sendIntTag(d, 10 * s + t, new byte[]{(byte) d, 1});
                        if (t != 1) c.sendLongTag(d, 100L * s + t, new byte[16]); // c stays empty at t = 1
                    }
                    ctx.reset();
                    Bsmp.syncAll(a, b, c);
                    assertEquals(2, ctx.syncs(), "one exchange for three objects");
                    assertTrue(ctx.puts() <= 3 * p && ctx.gets() <= 3 * p);
                    assertEquals(Bsmp.Mode.READ, a.mode());
                    assertEquals(p, a.remainingMessages());
                    int[] bytesFrom = new int[p];
                    for (BsmpMessage m : b.messages()) {
                        assertEquals(10 * m.source() + t, m.tagInt());
                        assertEquals((byte) s, m.payload().get(ValueLayout.JAVA_BYTE, 0));
                        bytesFrom[m.source()] += (int) m.size();
                    }
                    for (int from = 0; from < p; from++) assertEquals(3, bytesFrom[from], "b from " + from);
                    int fromC = 0;
                    for (BsmpMessage m : c.messages()) {
                        assertEquals(100L * m.source() + t, m.tagLong());
                        fromC++;
                    }
                    assertEquals(t == 1 ? 0 : p, fromC);
                    ctx.reset();
                    Bsmp.syncAll(a, b, c); // a's messages, never moved, are dropped
                    assertEquals(1, ctx.syncs(), "READ -> WRITE for all: one sync");
                    assertEquals(0, a.remainingMessages());
                }
                // Mixed modes: a alone goes to READ, then syncAll switches a back and b, c forward.
                a.send(s, MemorySegment.NULL, MemorySegment.NULL);
                ctx.reset();
                a.sync();
                assertEquals(2, ctx.syncs());
                b.sendIntTag(s, 9, new byte[0]);
                ctx.reset();
                Bsmp.syncAll(a, b, c);
                assertEquals(2, ctx.syncs(), "any object in WRITE: two syncs");
                assertEquals(Bsmp.Mode.WRITE, a.mode());
                assertEquals(Bsmp.Mode.READ, b.mode());
                assertEquals(9, b.move().tagInt());
                assertNull(c.move());
                Bsmp.syncAll(b, c);
            }
        });
    }
}
