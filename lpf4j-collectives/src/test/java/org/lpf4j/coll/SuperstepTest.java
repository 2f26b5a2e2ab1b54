package org.lpf4j.coll;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lpf4j.coll.Harness.assertBytes;
import static org.lpf4j.coll.Harness.assertRefused;
import static org.lpf4j.coll.Harness.bytes;
import static org.lpf4j.coll.Harness.fill;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.seed;
import static org.lpf4j.coll.Harness.segment;

/** Several collectives and user puts in one superstep, reuse over many supersteps, maxCalls. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SuperstepTest {
    static final int[] ODD = Harness.notAbove(1, 3, 5);
    static final int[] EVEN = Harness.notAbove(2, 4);

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> fiveCollectivesCases() {
        return Harness.rowsNotAbove("3,AUTO", "5,AUTO", "8,AUTO", "4,DIRECT", "4,TWO_PHASE", "5,TREE", "1,TWO_PHASE");
    }
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    @ParameterizedTest(name = "{1} p={0}")
    @MethodSource("fiveCollectivesCases")
    void fiveCollectivesAndAUserPutInOneSuperstep(int p, Algorithm a) {
        long size = 40, num = 33;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 9, 5L * 2 * p + 2); // the object's entries plus the user's put (origin and target)
            Collectives coll = Collectives.init(ctx, 5, 8, Math.max(p * size, num * 4)).algorithm(a);
            assertEquals(5L * 2 * p, coll.queueEntries());
            MemorySegment bsrc = segment(size), bdst = segment(size), x = segment(8), src = segment(p * size),
                    dst = segment(p * size), arr = segment(num * 4), ring = segment(8), mine = segment(8);
            Memslot bsrcSlot = ctx.registerGlobal(bsrc), bdstSlot = ctx.registerLocal(bdst), xSlot = ctx.registerGlobal(x);
            Memslot srcSlot = ctx.registerGlobal(src), dstSlot = ctx.registerGlobal(dst);
            Memslot arrSlot = ctx.registerGlobal(arr), ringSlot = ctx.registerGlobal(ring), mineSlot = ctx.registerLocal(mine);
            ctx.sync();
            int root = 1 % p;
            for (int round = 0; round < 3; round++) {
                long key = seed(p, round);
                if (s == root) fill(bsrc, 0, size, key);
                x.set(LONG, 0, s * 1000L + round);
                fill(src, 0, p * size, seed(key, s));
                MemorySegment.copy(Lanes.INT_MIN.input(key, s, num), 0, arr, 0, num * 4);
                ring.set(LONG, 0, -1);
                mine.set(LONG, 0, s * 7L + round);
                coll.broadcast(bsrcSlot, bdstSlot, size, root);
                coll.allreduce(x, xSlot, 8, Ops.LONG_SUM);
                ctx.put(mineSlot, 0, (s + 1) % p, ringSlot, 0, 8); // the user's own put
                coll.alltoall(srcSlot, dstSlot, size);
                coll.allcombine(arr, arrSlot, num, 4, Ops.INT_MIN);
                coll.gather(bsrcSlot, dstSlot, 0, 0);
                ctx.sync();
                String at = a + " p=" + p + " round " + round + " at pid " + s;
                if (s != root) assertBytes(bytes(size, key), 0, bdst, 0, size, "broadcast " + at);
                assertEquals(1000L * p * (p - 1) / 2 + (long) p * round, x.get(LONG, 0), "allreduce " + at);
                for (int k = 0; k < p; k++) {
                    if (k != s) assertBytes(bytes(p * size, seed(key, k)), s * size, dst, k * size, size, "alltoall " + at);
                }
                assertBytes(Lanes.INT_MIN.expected(key, ReductionTest.pids(coll), num), 0, arr, 0, num * 4, "allcombine " + at);
                assertEquals((s + p - 1) % p * 7L + round, ring.get(LONG, 0), "user put " + at);
            }
            coll.close();
        });
    }

    @Test
    void oneObjectOverManySuperstepsWithEmptyOnesBetween() {
        int p = 4;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 2, p + 1);
            Collectives coll = Collectives.init(ctx, 1, 8, 0);
            MemorySegment x = segment(8);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            for (int step = 0; step < 300; step++) {
                x.set(LONG, 0, step * 10L + s);
                coll.allreduce(x, xs, 8, step % 2 == 0 ? Ops.LONG_SUM : Ops.LONG_MAX);
                ctx.sync();
                long expect = step % 2 == 0 ? p * step * 10L + (long) p * (p - 1) / 2 : step * 10L + p - 1;
                assertEquals(expect, x.get(LONG, 0), "step " + step + " at pid " + s);
                if (step % 7 == 0) ctx.sync();
            }
            coll.close();
        });
    }

    @Test
    void maxCallsIsEnforcedPerSuperstepAndRenewedBySync() {
        int p = 3;
        run(p, ctx -> {
            reserve(ctx, 2, 2L * p + 1);
            Collectives coll = Collectives.init(ctx, 2, 8, 0);
            // One-superstep variants: what AUTO picks follows the machine's measured cost (a
            // TWO_PHASE allreduce would sync inside and renew the count).
            coll.algorithm(Algorithm.DIRECT);
            MemorySegment x = segment(8);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            for (int round = 0; round < 3; round++) {
                x.set(LONG, 0, 1);
                coll.allreduce(x, xs, 8, Ops.LONG_MAX);
                coll.reduce(x, xs, 8, Ops.LONG_MAX, 0);
                assertRefused(IllegalStateException.class, () -> coll.allreduce(x, xs, 8, Ops.LONG_MAX),
                        "allreduce", "maxCalls=2");
                ctx.sync();
                assertEquals(1, x.get(LONG, 0));
            }
            // a two-superstep variant counts in the superstep its second half runs in
            coll.algorithm(Algorithm.TWO_PHASE);
            coll.allreduce(x, xs, 8, Ops.LONG_SUM);
            coll.algorithm(Algorithm.DIRECT);
            coll.allreduce(x, xs, 0, Ops.LONG_SUM);
            assertRefused(IllegalStateException.class, () -> coll.allreduce(x, xs, 0, Ops.LONG_SUM), "maxCalls=2");
            ctx.sync();
            assertEquals(p, x.get(LONG, 0));
            coll.close();
        });
    }

    /**
     * maxCalls = 3: a DIRECT allreduce, a TWO_PHASE allreduce (its internal sync delivers the
     * first; it counts as the first call of the new superstep), then two DIRECT calls, the last of
     * which wraps round to the first call's buffer region; a fifth call is the fourth of the
     * superstep and refused.
     */
    @ParameterizedTest(name = "p={0}")
    @FieldSource("ODD")
    void directTwoPhaseDirectMixWrapsTheBufferRegions(int p) {
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 5, 3L * 2 * p);
            Collectives coll = Collectives.init(ctx, 3, 8, 8);
            MemorySegment[] x = {segment(8), segment(8), segment(8), segment(8)};
            Memslot[] xs = new Memslot[4];
            for (int k = 0; k < 4; k++) xs[k] = ctx.registerGlobal(x[k]);
            ctx.sync();
            for (int round = 0; round < 2; round++) {
                for (int k = 0; k < 4; k++) x[k].set(LONG, 0, (k + 1) * 100L + s + round);
                long before = coll.callCount();
                coll.algorithm(Algorithm.DIRECT).allreduce(x[0], xs[0], 8, Ops.LONG_SUM);
                coll.algorithm(Algorithm.TWO_PHASE).allreduce(x[1], xs[1], 8, Ops.LONG_MAX);
                coll.algorithm(Algorithm.DIRECT).allreduce(x[2], xs[2], 8, Ops.LONG_MIN);
                coll.allcombine(x[3], xs[3], 1, 8, Ops.LONG_SUM);
                assertEquals(before + 4, coll.callCount());
                assertRefused(IllegalStateException.class, () -> coll.allreduce(x[0], xs[0], 0, Ops.LONG_SUM), "maxCalls=3");
                ctx.sync();
                String at = "p=" + p + " round " + round + " at pid " + s;
                assertEquals(100L * p + (long) p * (p - 1) / 2 + (long) p * round, x[0].get(LONG, 0), "DIRECT sum " + at);
                assertEquals(200L + p - 1 + round, x[1].get(LONG, 0), "TWO_PHASE max " + at);
                assertEquals(300L + round, x[2].get(LONG, 0), "DIRECT min " + at);
                assertEquals(400L * p + (long) p * (p - 1) / 2 + (long) p * round, x[3].get(LONG, 0), "wrapped " + at);
            }
            coll.close();
        });
    }

    /** One object's internal sync starts a new superstep for the other object too (maxCalls = 1 each). */
    @ParameterizedTest(name = "p={0}")
    @FieldSource("EVEN")
    void anotherObjectsInternalSyncRenewsTheCount(int p) {
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 5, 2L * 2 * p);
            Collectives a = Collectives.init(ctx, 1, 8, 0).algorithm(Algorithm.DIRECT);
            Collectives b = Collectives.init(ctx, 1, 8, 0).algorithm(Algorithm.TWO_PHASE);
            MemorySegment x = segment(8), y = segment(8), z = segment(8);
            Memslot xs = ctx.registerGlobal(x), ys = ctx.registerGlobal(y), zs = ctx.registerGlobal(z);
            ctx.sync();
            x.set(LONG, 0, s);
            y.set(LONG, 0, s);
            z.set(LONG, 0, 10L * s);
            a.allreduce(x, xs, 8, Ops.LONG_SUM);
            assertRefused(IllegalStateException.class, () -> a.allreduce(z, zs, 8, Ops.LONG_SUM), "maxCalls=1");
            b.allreduce(y, ys, 8, Ops.LONG_MAX); // syncs inside: a's call is delivered, a new superstep begins
            a.allreduce(z, zs, 8, Ops.LONG_SUM); // so a may be called again
            ctx.sync();
            assertEquals((long) p * (p - 1) / 2, x.get(LONG, 0));
            assertEquals(p - 1, y.get(LONG, 0));
            assertEquals(10L * p * (p - 1) / 2, z.get(LONG, 0));
            b.close();
            a.close();
        });
    }

    /** An operation before the sync that follows init is refused, naming the rule, with no effect. */
    @Test
    void anOperationBeforeTheSyncAfterInitIsRefused() {
        int p = 3;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 2, 2L * (p - 1));
            MemorySegment x = segment(8);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            Collectives coll = Collectives.init(ctx, 1, 8, 0).algorithm(Algorithm.DIRECT);
            x.set(LONG, 0, s + 1);
            assertRefused(IllegalStateException.class, () -> coll.allreduce(x, xs, 8, Ops.LONG_SUM),
                    "allreduce", "usable only after the sync that follows init");
            ctx.sync();
            coll.allreduce(x, xs, 8, Ops.LONG_SUM); // the refused call took no entry and no call
            ctx.sync();
            assertEquals((long) p * (p + 1) / 2, x.get(LONG, 0));
            coll.close();
        });
    }

    /**
     * A call that fails part-way (queue full after its first put) leaves that put queued, does not
     * count, and the object refuses operations (and close) until the next sync; then it works.
     */
    @Test
    void aCallFailingPartWayBlocksTheObjectUntilTheNextSync() {
        int p = 3;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 3, 1);
            Collectives coll = Collectives.init(ctx, 2, 0, 8);
            MemorySegment src = segment(8), dst = segment(8L * p);
            Memslot srcSlot = ctx.registerGlobal(src), dstSlot = ctx.registerGlobal(dst);
            ctx.sync();
            src.set(LONG, 0, 100L + s);
            assertRefused(IllegalStateException.class, () -> coll.allgather(srcSlot, dstSlot, 8, true), "queue full");
            assertEquals(0, coll.callCount(), "a failed call does not advance the buffer rotation");
            assertRefused(IllegalStateException.class, () -> coll.gather(srcSlot, dstSlot, 8, 0),
                    "gather", "failed part-way", "next sync");
            assertRefused(IllegalStateException.class, coll::close, "sync before close");
            ctx.sync();
            // the first put of the failed allgather went to the lowest other rank: 0's to 1, the others' to 0
            for (int j = 0; j < p; j++) {
                boolean delivered = j == 0 ? s == 1 : s == 0;
                assertEquals(delivered ? 100L + j : 0, dst.get(LONG, 8L * j), "block " + j + " at pid " + s);
            }
            dst.fill((byte) 0);
            coll.gather(srcSlot, dstSlot, 8, 0);
            assertEquals(1, coll.callCount());
            ctx.sync();
            if (s == 0) for (int k = 1; k < p; k++) assertEquals(100L + k, dst.get(LONG, 8L * k), "gather block " + k);
            coll.close();
        });
    }
}
