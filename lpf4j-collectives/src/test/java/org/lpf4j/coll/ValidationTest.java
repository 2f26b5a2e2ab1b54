package org.lpf4j.coll;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lpf4j.coll.Harness.assertRefused;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.segment;

/**
 * Bad input gets a clear exception and has no effect: after every refused call, one good call
 * still fits the exact reservation (queue entries and maxCalls = 1) and gives the right result.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ValidationTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /**
     * A program that did not reserve what init and the operations need is told so by the call it
     * made (not by registerGlobal or put, which it never called), with the amounts and the fix.
     */
    @Test
    void initAndOperationsWithoutReservedRoomNameThemselvesAndWhatToReserve() {
        int p = 2;
        run(p, ctx -> {
            assertRefused(IllegalStateException.class, () -> Collectives.init(ctx, 1, 8, 0),
                    "Collectives.init(maxCalls=1, maxElemSize=8, maxByteSize=0) at pid " + ctx.pid() + " of 2",
                    "memory register full: 0 of 0", "one free memory-register entry", "4 message-queue entries",
                    "ctx.resizeMemoryRegister(own slots + 1)", "ctx.resizeMessageQueue(own requests + 4)", "ctx.sync()");
            assertRefused(IllegalStateException.class, () -> Collectives.initStrided(ctx, 0, 2, 1, 3, 8, 0),
                    "Collectives.initStrided(maxCalls=3", "12 message-queue entries");
            reserve(ctx, 2, 0); // the register, but not the queue
            Collectives coll = Collectives.init(ctx, 1, 8, 0).algorithm(Algorithm.DIRECT);
            MemorySegment x = segment(8);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            assertRefused(IllegalStateException.class, () -> coll.allreduce(x, xs, 8, Ops.LONG_SUM),
                    "Collectives.allreduce at pid " + ctx.pid() + " of 2", "message queue full",
                    "queueEntries() = 4", "ctx.resizeMessageQueue(own + 4)");
            ctx.sync();
            ctx.deregister(xs);
            coll.close();
        });
    }

    @Test
    void badCallsAreRefusedWithoutEffect() {
        int p = 3;
        long documented = 2L * (p - 1); // a DIRECT allreduce: p-1 puts and the target of p-1
        SpecQueue spec = new SpecQueue(p, documented); // fails the sync if a refused call leaked an entry
        run(p, raw -> spec.run(raw, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 4, documented);
            Collectives coll = Collectives.init(ctx, 1, 8, 64).algorithm(Algorithm.DIRECT);
            MemorySegment x = segment(8), big = segment(3 * 64), small = segment(4);
            Memslot xs = ctx.registerGlobal(x), bigs = ctx.registerGlobal(big), smalls = ctx.registerLocal(small);
            ctx.sync();
            assertRefused(IllegalArgumentException.class, () -> coll.broadcast(bigs, bigs, 65, 0), "broadcast", "65", "maxByteSize=64");
            assertRefused(IllegalArgumentException.class, () -> coll.broadcast(bigs, bigs, -1, 0), "negative size");
            assertRefused(IndexOutOfBoundsException.class, () -> coll.broadcast(bigs, bigs, 8, 3), "root 3", "[0, 3)");
            assertRefused(IndexOutOfBoundsException.class, () -> coll.gather(bigs, bigs, 8, -1), "root -1");
            assertRefused(IllegalArgumentException.class, () -> coll.allgather(bigs, bigs, 8, true), "same slot");
            assertRefused(IllegalArgumentException.class, () -> coll.alltoall(bigs, bigs, 8), "same slot");
            assertRefused(IllegalArgumentException.class, () -> coll.alltoall(smalls, bigs, 1), "src", "global");
            assertRefused(IllegalArgumentException.class, () -> coll.allgather(smalls, bigs, 8, true), "4 registered bytes", "needs 8");
            assertRefused(IllegalArgumentException.class, () -> coll.allgather(xs, bigs, 64, true), "8 registered bytes");
            assertRefused(IllegalArgumentException.class, () -> coll.scatter(bigs, smalls, 8, s == 0 ? 1 : 0), "dst", "needs 8");
            assertRefused(IllegalArgumentException.class, () -> coll.allreduce(x, xs, 16, Ops.LONG_SUM), "16", "maxElemSize=8");
            assertRefused(IllegalArgumentException.class, () -> coll.allreduce(x, xs, 4, Ops.LONG_SUM), "LONG_SUM", "8-byte");
            assertRefused(IllegalArgumentException.class, () -> coll.allreduce(x, smalls, 8, Ops.LONG_SUM), "global");
            assertRefused(IllegalArgumentException.class, () -> coll.allreduce(small, xs, 8, Ops.LONG_SUM), "segment has 4 bytes");
            assertRefused(NullPointerException.class, () -> coll.allreduce(x, xs, 8, null), "operator is null");
            assertRefused(IllegalArgumentException.class, () -> coll.allcombine(big, bigs, 9, 8, Ops.LONG_SUM), "9*8", "maxByteSize=64");
            assertRefused(IllegalArgumentException.class, () -> coll.combine(big, bigs, -1, 8, Ops.LONG_SUM, 0), "negative num");
            // nothing was consumed: one good call fits exactly
            x.set(LONG, 0, s + 1);
            coll.allreduce(x, xs, 8, Ops.LONG_SUM);
            ctx.sync();
            assertEquals((long) p * (p + 1) / 2, x.get(LONG, 0));
            assertEquals(documented, spec.peak(s), "the good call takes exactly its documented entries");
            coll.close();
            assertRefused(IllegalStateException.class, () -> coll.allreduce(x, xs, 8, Ops.LONG_SUM), "closed");
            coll.close(); // a second close does nothing
        }));
    }

    @Test
    void badInitAndStridedMisuseAreRefused() {
        int p = 4;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 2, p + 1);
            assertRefused(IllegalArgumentException.class, () -> Collectives.init(ctx, 0, 8, 8), "maxCalls=0");
            assertRefused(IllegalArgumentException.class, () -> Collectives.init(ctx, 1, -1, 8), "maxElemSize=-1");
            assertRefused(IllegalArgumentException.class, () -> Collectives.initStrided(ctx, 2, 1, 1, 1, 8, 8), "lo=2, hi=1");
            assertRefused(IllegalArgumentException.class, () -> Collectives.initStrided(ctx, 0, 5, 1, 1, 8, 8), "hi=5");
            assertRefused(IllegalArgumentException.class, () -> Collectives.initStrided(ctx, 0, 4, 0, 1, 8, 8), "stride=0");
            assertRefused(IllegalArgumentException.class, () -> Collectives.initStrided(ctx, -1, 4, 1, 1, 8, 8), "lo=-1");
            Collectives coll = Collectives.initStrided(ctx, 0, 4, 2, 1, 8, 8);
            MemorySegment x = segment(8);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            assertRefused(IllegalStateException.class, () -> coll.algorithm(Algorithm.TWO_PHASE), "TWO_PHASE", "not all 4");
            assertRefused(IllegalStateException.class, () -> coll.algorithm(Algorithm.TREE), "only DIRECT");
            coll.algorithm(Algorithm.DIRECT);
            if (s % 2 == 1) {
                assertRefused(IllegalStateException.class, () -> coll.allreduce(x, xs, 8, Ops.LONG_SUM), "not a member");
            } else {
                assertRefused(IllegalArgumentException.class, () -> coll.reduce(x, xs, 8, Ops.LONG_SUM, 1), "root 1", "not a member");
                x.set(LONG, 0, s);
                coll.allreduce(x, xs, 8, Ops.LONG_SUM);
                assertRefused(IllegalStateException.class, coll::close, "pending", "sync before close");
            }
            ctx.sync();
            assertEquals(s % 2 == 0 ? 2 : 0, x.get(LONG, 0));
            coll.close();
        });
    }

    /**
     * A context that supports no optional capability. A named static class: an anonymous one made
     * inside the SPMD lambda would capture the test object, and the lambda would not serialize.
     */
    private static final class WithoutCapabilities extends org.lpf4j.spi.kit.ForwardingContext {
        WithoutCapabilities(Context raw) { super(raw); }

        @Override public boolean supports(org.lpf4j.Capability c) { return false; }
    }

    @Test
    void withoutCombiningPutsReductionsAreRefusedAndDataMovementWorks() {
        int p = 3;
        run(p, raw -> {
            Context ctx = new WithoutCapabilities(raw);
            int s = ctx.pid();
            reserve(ctx, 4, 2L * (p - 1));
            Collectives coll = Collectives.init(ctx, 1, 8, 64).algorithm(Algorithm.DIRECT);
            MemorySegment x = segment(8);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            assertRefused(UnsupportedOperationException.class, () -> coll.allreduce(x, xs, 8, Ops.LONG_SUM),
                    "allreduce", "COMBINING_PUTS", "broadcast");
            assertRefused(UnsupportedOperationException.class, () -> coll.reduce(x, xs, 8, Ops.LONG_SUM, 0), "reduce");
            assertRefused(UnsupportedOperationException.class, () -> coll.combine(x, xs, 1, 8, Ops.LONG_SUM, 0), "combine");
            assertRefused(UnsupportedOperationException.class, () -> coll.allcombine(x, xs, 1, 8, Ops.LONG_SUM), "allcombine");
            x.set(LONG, 0, s == 1 ? 42 : 0);
            coll.broadcast(xs, xs, 8, 1);
            ctx.sync();
            assertEquals(42, x.get(LONG, 0), "a broadcast needs no combining puts");
            coll.close();
            ctx.deregister(xs);
        });
    }
}
