package org.lpf4j.superstep;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.FatalException;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Edge cases of the exchange between two processes over the in-memory transport, both ways of a
 * sync's meta-data (streams before the round, or counts after it): a zero-size put is a no-op
 * whatever it names, as a zero-size get is (and as on the threads engine); a large put whose
 * source or destination memory was freed (its Arena closed, not deregistered) is reported by the
 * sync, naming the put, after the exchange completed, never left to the transport (which would
 * read or write freed memory, or leave the peer waiting). A combining put whose operator does not
 * deserialize at its destination is reported at every sync that drops such puts, not only the first.
 */
class ExchangeEdgeCasesTest {
    private static final ProtocolSettings EARLY = MemoryContext.settings(16, "auto", 64), AFTER = MemoryContext.settings(0, "dense", 64);
    private static final int LARGE = (int) Packer.LARGE * 2;

    private static void passes(boolean early, Spmd spmd) {
        for (long seed = 1; seed <= 3; seed++) {
            FatalException[] out = MemoryContext.run(new MemoryJob(2, 3_000, seed), early ? EARLY : AFTER, spmd, 60_000);
            for (int r = 0; r < 2; r++) {
                if (out[r] != null) throw new AssertionError("seed " + seed + ", pid " + r + ": " + out[r].getMessage(), out[r]);
            }
        }
    }

    @ParameterizedTest(name = "early: {0}")
    @ValueSource(booleans = {true, false})
    void aZeroSizePutPastTheEndOfTheRemoteSlotIsANoOpAsAZeroSizeGetIs(boolean early) {
        passes(early, ctx -> {
            int me = ctx.pid(), other = 1 - me;
            MemorySegment small = Arena.ofAuto().allocate(8).fill((byte) 7);
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(8);
            ctx.sync();
            Memslot s = ctx.registerGlobal(small);
            ctx.sync();
            ctx.get(other, s, 100, s, 0, 0);   // a zero-size get past the end of the remote slot: nothing
            ctx.put(s, 0, other, s, 100, 0);   // the same for a put
            ctx.put(s, 8, me, s, 64, 0);       // and to itself
            ctx.sync();
            assertEquals(0x0707070707070707L, small.get(ValueLayout.JAVA_LONG, 0));
        });
    }

    @ParameterizedTest(name = "early: {0}")
    @ValueSource(booleans = {true, false})
    void aLargePutFromFreedMemoryIsReportedAndTheExchangeCompletes(boolean early) {
        passes(early, ctx -> {
            int me = ctx.pid();
            MemorySegment dst = Arena.ofAuto().allocate(LARGE).fill((byte) 0x55);
            ctx.resizeMemoryRegister(2);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot d = ctx.registerGlobal(dst);
            Arena freed = Arena.ofShared();
            Memslot s = ctx.registerLocal(freed.allocate(LARGE).fill((byte) 1));
            ctx.sync();
            if (me == 0) {
                ctx.put(s, 0, 1, d, 0, LARGE);
                freed.close(); // before the sync, without deregistering
                IllegalStateException e = assertThrows(IllegalStateException.class, ctx::sync);
                assertTrue(e.getMessage().contains("put from pid 0 to pid 1 (size=" + LARGE + "): pid 0 closed the Arena of its"
                        + " source memory"), e.getMessage());
            } else {
                freed.close();
                ctx.sync();
                assertEquals(-1, dst.mismatch(MemorySegment.ofArray(new byte[LARGE])), "zeros in the freed source's place");
            }
            ctx.sync(); // the section goes on
        });
    }

    @ParameterizedTest(name = "early: {0}")
    @ValueSource(booleans = {true, false})
    void aPutIntoFreedMemoryIsReportedAndTheOthersAreWritten(boolean early) {
        passes(early, ctx -> {
            int me = ctx.pid();
            MemorySegment src = Arena.ofAuto().allocate(LARGE).fill((byte) 3), alive = Arena.ofAuto().allocate(8);
            Arena freed = Arena.ofShared();
            ctx.resizeMemoryRegister(3);
            ctx.resizeMessageQueue(4);
            ctx.sync();
            Memslot s = ctx.registerLocal(src), d = ctx.registerGlobal(freed.allocate(LARGE)), a = ctx.registerGlobal(alive);
            ctx.sync();
            if (me == 0) {
                ctx.put(s, 0, 1, d, 0, LARGE); // received in place, were the memory there
                ctx.put(s, 0, 1, d, 8, 16);    // inline
                ctx.put(s, 0, 1, a, 0, 8);     // into live memory: written
                ctx.sync();
                ctx.sync();
            } else {
                freed.close(); // before the sync, without deregistering
                IllegalStateException e = assertThrows(IllegalStateException.class, ctx::sync);
                assertTrue(e.getMessage().contains("put from pid 0 to pid 1 global#" + d.id()), e.getMessage());
                assertTrue(e.getMessage().contains("pid 1 closed the Arena of its destination memory"), e.getMessage());
                assertEquals(0x0303030303030303L, alive.get(ValueLayout.JAVA_LONG, 0), "the put into live memory");
                ctx.sync(); // the section goes on
            }
        });
    }

    @ParameterizedTest(name = "early: {0}")
    @ValueSource(booleans = {true, false})
    void aGetIntoFreedMemoryIsReportedAndTheOthersAreWritten(boolean early) {
        passes(early, ctx -> {
            int me = ctx.pid();
            MemorySegment src = Arena.ofAuto().allocate(64).fill((byte) (me + 1)), alive = Arena.ofAuto().allocate(64);
            Arena freed = Arena.ofShared();
            ctx.resizeMemoryRegister(3);
            ctx.resizeMessageQueue(4);
            ctx.sync();
            Memslot s = ctx.registerGlobal(src), d = ctx.registerLocal(freed.allocate(64)), a = ctx.registerLocal(alive);
            ctx.sync();
            if (me == 1) {
                ctx.get(0, s, 0, d, 0, 64); // into memory freed before the sync
                ctx.get(0, s, 0, a, 0, 64); // into live memory: written
                freed.close();
                IllegalStateException e = assertThrows(IllegalStateException.class, ctx::sync);
                assertTrue(e.getMessage().contains("get from pid 0 global#" + s.id()), e.getMessage());
                assertTrue(e.getMessage().contains("destination memory was closed"), e.getMessage());
                assertEquals(0x0101010101010101L, alive.get(ValueLayout.JAVA_LONG, 56), "the get into live memory");
            } else {
                ctx.sync();
            }
            ctx.sync(); // the section goes on
        });
    }

    /** A combiner that serializes at its source and refuses to deserialize anywhere. */
    static final class RefusesToArrive implements org.lpf4j.MsgAttr.ElementCombiner, Serializable {
        private static final long serialVersionUID = 1L;

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            throw new InvalidObjectException("refused at the destination");
        }

        @Override
        public void combine(long n, MemorySegment src, long so, MemorySegment dst, long d) {
            throw new AssertionError("never combined: it never arrives");
        }
    }

    /**
     * The source counts a definition as known at its destination once sent, so the destination
     * drops every later put with that operator: each sync that drops some says so (before, only the
     * first did, and the later puts vanished without a word).
     */
    @ParameterizedTest(name = "early: {0}")
    @ValueSource(booleans = {true, false})
    void aCombiningPutWhoseOperatorDoesNotDeserializeIsReportedAtEverySync(boolean early) {
        passes(early, ctx -> {
            int me = ctx.pid();
            MemorySegment v = Arena.ofAuto().allocate(8).fill((byte) 0);
            org.lpf4j.MsgAttr refused = org.lpf4j.MsgAttr.combining(8, new RefusesToArrive());
            ctx.resizeMemoryRegister(1);
            ctx.resizeMessageQueue(2);
            ctx.sync();
            Memslot s = ctx.registerGlobal(v);
            ctx.sync();
            for (int round = 0; round < 3; round++) {
                if (me == 0) ctx.put(s, 0, 1, s, 0, 8, refused);
                if (me == 1) {
                    IllegalStateException e = assertThrows(IllegalStateException.class, ctx::sync, "round " + round);
                    assertTrue(e.getMessage().contains("operator from pid 0 does not deserialize"), "round " + round + ": " + e.getMessage());
                    assertTrue(e.getMessage().contains("refused at the destination"), e.getMessage());
                } else {
                    ctx.sync();
                }
            }
            ctx.sync(); // the section goes on
        });
    }
}
