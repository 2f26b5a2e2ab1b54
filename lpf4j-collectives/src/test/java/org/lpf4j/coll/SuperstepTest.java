package org.lpf4j.coll;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
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
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    @ParameterizedTest(name = "{1} p={0}")
    @CsvSource({"3,AUTO", "5,AUTO", "8,AUTO", "4,DIRECT", "4,TWO_PHASE", "5,TREE", "1,TWO_PHASE"})
    void fiveCollectivesAndAUserPutInOneSuperstep(int p, Algorithm a) {
        long size = 40, num = 33;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 9, 5L * p + 1 + 1);
            Collectives coll = Collectives.init(ctx, 5, 8, Math.max(p * size, num * 4)).algorithm(a);
            assertEquals(5L * p + 1, coll.queueEntries());
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
}
