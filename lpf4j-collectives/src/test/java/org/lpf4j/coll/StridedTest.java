package org.lpf4j.coll;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lpf4j.coll.Harness.assertBytes;
import static org.lpf4j.coll.Harness.assertUntouched;
import static org.lpf4j.coll.Harness.bytes;
import static org.lpf4j.coll.Harness.fill;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.seed;
import static org.lpf4j.coll.Harness.segment;

/**
 * Collectives over strided subsets: only members call, non-members just sync, so every
 * operation (reductions included) must finish in the caller's next sync without an internal
 * sync — otherwise the sync counts differ and the section fails. Non-members' memory must stay
 * untouched.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StridedTest {
    /** Syncs a member makes per root below; a non-member makes as many. */
    private static final int SYNCS_PER_ROOT = 8;

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> subsets() {
        return Harness.rowsNotAbove("8,1,8,2", "8,0,8,3", "8,2,8,3", "4,0,4,2", "5,1,5,1", "3,0,3,1", "4,2,2,1", "6,5,6,4");
    }

    @ParameterizedTest(name = "p={0} lo={1} hi={2} stride={3}")
    @MethodSource("subsets")
    void everyOperationOnTheSubsetAtEveryMemberRoot(int p, int lo, int hi, int stride) {
        long size = 21, num = 9;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 4, 4L * p + 1);
            Collectives coll = Collectives.initStrided(ctx, lo, hi, stride, 4, 12, p * size * 4);
            int q = Math.max(0, (hi - lo + stride - 1) / stride);
            assertEquals(q, coll.members());
            boolean member = s >= lo && s < hi && (s - lo) % stride == 0;
            assertEquals(member ? (s - lo) / stride : -1, coll.rank());
            MemorySegment arr = segment(p * size * 4), area = segment(p * size), blk = segment(size);
            Memslot arrSlot = ctx.registerGlobal(arr), areaSlot = ctx.registerGlobal(area);
            Memslot blkSlot = ctx.registerLocal(blk);
            ctx.sync();
            long mark = seed(s, 99);
            fill(arr, 0, arr.byteSize(), mark);
            fill(area, 0, area.byteSize(), mark + 1);
            for (int rootRank = 0; rootRank < q; rootRank++) {
                int root = lo + rootRank * stride;
                if (!member) {
                    for (int k = 0; k < SYNCS_PER_ROOT; k++) ctx.sync();
                    continue;
                }
                long key = seed(p, lo, hi, stride, root);
                // broadcast (root's area to arr) and gather (blk to the root's arr) in one superstep
                if (s == root) fill(area, 0, size, key);
                fill(blk, 0, size, seed(key, s));
                coll.broadcast(areaSlot, arrSlot, size, root);
                coll.gather(blkSlot, arrSlot, size, root);
                ctx.sync();
                for (int k = 0; k < q; k++) {
                    if (s == root && k != coll.rank()) {
                        assertBytes(bytes(size, seed(key, lo + k * stride)), 0, arr, k * size, size, "gather block " + k);
                    }
                }
                if (s != root) assertBytes(bytes(size, key), 0, arr, 0, size, "broadcast at pid " + s);
                coll.allgather(blkSlot, areaSlot, size, true);
                ctx.sync();
                for (int k = 0; k < q; k++) {
                    if (k != coll.rank()) {
                        assertBytes(bytes(size, seed(key, lo + k * stride)), 0, area, k * size, size, "allgather block " + k);
                    }
                }
                // alltoall of rank-tagged blocks
                fill(arr, 0, q * size, seed(key, s, 3));
                coll.alltoall(arrSlot, areaSlot, size);
                ctx.sync();
                for (int k = 0; k < q; k++) {
                    if (k == coll.rank()) continue;
                    int from = lo + k * stride;
                    assertBytes(bytes(q * size, seed(key, from, 3)), coll.rank() * size, area, k * size, size,
                            "alltoall block " + k + " at pid " + s);
                }
                ReductionTest.reduce(ctx, coll, arr, arrSlot, Lanes.INT3_SUM, root, Algorithm.AUTO);
                ReductionTest.combine(ctx, coll, arr, arrSlot, Lanes.LONG_SUM, num, root, Algorithm.AUTO);
                ReductionTest.combine(ctx, coll, arr, arrSlot, Lanes.FLOAT_MAX, 1, -1, Algorithm.AUTO);
                ReductionTest.combine(ctx, coll, arr, arrSlot, Lanes.XOR3, num, -1, Algorithm.AUTO);
                ctx.sync();
            }
            if (!member) {
                assertUntouched(arr, 0, arr.byteSize(), mark, 0, "a non-member's array");
                assertUntouched(area, 0, area.byteSize(), mark + 1, 0, "a non-member's area");
            }
            coll.close();
        });
    }
}
