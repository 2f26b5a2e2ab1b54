package org.lpf4j.coll;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.segment;

/** Member counting and ranks, including strides so large that {@code hi − lo + stride} overflows. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MembersTest {
    @Test
    void countAndRanksForEveryStrideIncludingHugeOnes() {
        int[] strides = {1, 2, 3, 7, Integer.MAX_VALUE / 2, Integer.MAX_VALUE - 1, Integer.MAX_VALUE};
        for (int nprocs = 1; nprocs <= 9; nprocs++) {
            for (int lo = 0; lo <= nprocs; lo++) {
                for (int hi = lo; hi <= nprocs; hi++) {
                    for (int stride : strides) {
                        Members m = new Members(nprocs, 0, lo, hi, stride);
                        int expect = 0;
                        for (long pid = lo; pid < hi; pid += stride) expect++;
                        String at = "lo=" + lo + " hi=" + hi + " stride=" + stride;
                        assertEquals(expect, m.count, at);
                        for (int r = 0; r < m.count; r++) assertEquals(r, m.rankOf(m.pid(r)), at + " rank " + r);
                    }
                }
            }
        }
        assertEquals(1, new Members(3, 0, 0, 3, Integer.MAX_VALUE).count, "lo=0, hi=3, stride=MAX_VALUE");
    }

    @Test
    void aHugeStrideGivesOneMemberThatWorks() {
        int p = 3;
        run(p, ctx -> {
            reserve(ctx, 2, 0);
            Collectives coll = Collectives.initStrided(ctx, 1, p, Integer.MAX_VALUE, 1, 8, 8);
            MemorySegment x = segment(8);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            assertEquals(1, coll.members());
            assertEquals(ctx.pid() == 1 ? 0 : -1, coll.rank());
            if (coll.rank() == 0) {
                x.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
                coll.allreduce(x, xs, 8, Ops.LONG_SUM);
            }
            ctx.sync();
            assertEquals(ctx.pid() == 1 ? 42 : 0, x.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            coll.close();
        });
    }
}
