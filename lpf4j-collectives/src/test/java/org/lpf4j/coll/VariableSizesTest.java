package org.lpf4j.coll;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.lpf4j.coll.Harness.assertBytes;
import static org.lpf4j.coll.Harness.assertRefused;
import static org.lpf4j.coll.Harness.bytes;
import static org.lpf4j.coll.Harness.fill;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.seed;
import static org.lpf4j.coll.Harness.segment;

/**
 * alltoallv and allgatherv against a sequential reference: random sizes per pair (a quarter of
 * them empty, and one round where every part is empty), parts placed out of rank order with gaps
 * in both src and dst, two calls per superstep; every byte of every dst compared with what the
 * reference computes, gaps included (they must stay untouched). p = 1, 2, 3, 4, 5, 8; allgatherv
 * also on a strided object. Parts that overlap in dst end as one sender's part. Then the refusals: mismatched counts, a strict subset, bad arrays.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VariableSizesTest {
    static final int[] COUNTS = Harness.notAbove(1, 2, 3, 4, 5, 8);
    private static final int ROUNDS = 4;
    /** The round in which every part is empty. */
    private static final int EMPTY_ROUND = 2;
    private static final int GAP = 3;

    /** Bytes member s sends member k in {@code round} of test {@code key}: 0..40, a quarter 0. */
    static long count(long key, int round, int s, int k) {
        if (round == EMPTY_ROUND) return 0;
        SplittableRandom r = new SplittableRandom(seed(key, round, s, k));
        return r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(40);
    }

    /** Offsets of parts of the given sizes, laid out in reverse rank order with a gap before each. */
    static long[] reversed(long[] counts) {
        long[] off = new long[counts.length];
        long at = GAP;
        for (int k = counts.length - 1; k >= 0; k--) {
            off[k] = at;
            at += counts[k] + GAP;
        }
        return off;
    }

    /** @return the end of the last part of a layout */
    static long end(long[] counts, long[] offsets) {
        long e = 0;
        for (int k = 0; k < counts.length; k++) e = Math.max(e, offsets[k] + counts[k]);
        return e + GAP;
    }

    @ParameterizedTest(name = "p={0}")
    @FieldSource("COUNTS")
    void alltoallvMatchesTheSequentialReference(int p) {
        long key = seed(p, 17);
        long area = 2 * GAP + p * (40L + GAP) + 8;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 5, 8L * p);
            Collectives coll = Collectives.init(ctx, 2, 0, 0);
            MemorySegment[] src = {segment(area), segment(area)}, dst = {segment(area), segment(area)};
            Memslot[] srcSlot = {ctx.registerGlobal(src[0]), ctx.registerGlobal(src[1])};
            Memslot[] dstSlot = {ctx.registerLocal(dst[0]), ctx.registerGlobal(dst[1])};
            ctx.sync();
            for (int round = 0; round < ROUNDS; round++) {
                long[][] rc = new long[2][p], ro = new long[2][];
                for (int c = 0; c < 2; c++) {
                    long callKey = seed(key, c);
                    long[] sc = new long[p];
                    for (int k = 0; k < p; k++) {
                        sc[k] = count(callKey, round, s, k);
                        rc[c][k] = count(callKey, round, k, s);
                    }
                    long[] so = reversed(sc);
                    ro[c] = new long[p];
                    long at = 5;
                    for (int k = 0; k < p; k++) { // rank order, gaps of k bytes
                        ro[c][k] = at;
                        at += rc[c][k] + k;
                    }
                    fill(src[c], 0, area, seed(callKey, round, s, -1));
                    for (int k = 0; k < p; k++) fill(src[c], so[k], sc[k], seed(callKey, round, s, k));
                    fill(dst[c], 0, area, seed(callKey, round, s, -2));
                    coll.alltoallv(srcSlot[c], sc, so, dstSlot[c], rc[c], ro[c]);
                }
                ctx.sync();
                for (int c = 0; c < 2; c++) {
                    long callKey = seed(key, c);
                    MemorySegment expected = bytes(area, seed(callKey, round, s, -2));
                    for (int k = 0; k < p; k++) {
                        MemorySegment.copy(bytes(rc[c][k], seed(callKey, round, k, s)), 0, expected, ro[c][k], rc[c][k]);
                    }
                    assertBytes(expected, 0, dst[c], 0, area, "alltoallv p=" + p + " round " + round + " call " + c
                            + " at pid " + s);
                }
            }
            coll.close();
        });
    }

    @ParameterizedTest(name = "p={0}")
    @FieldSource("COUNTS")
    void allgathervMatchesTheSequentialReference(int p) {
        long key = seed(p, 23);
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 6, 8L * p);
            Collectives all = Collectives.init(ctx, 2, 0, 0);
            // a strided object: pids 1, 3, 5, ... (every pid when p = 1)
            int lo = p > 1 ? 1 : 0, stride = 2;
            Collectives odd = Collectives.initStrided(ctx, lo, p, stride, 2, 0, 0);
            long area = 2 * GAP + p * (40L + GAP) + 8;
            MemorySegment src = segment(40), dst = segment(area), dst2 = segment(area);
            Memslot srcSlot = ctx.registerLocal(src), dstSlot = ctx.registerGlobal(dst), dst2Slot = ctx.registerGlobal(dst2);
            ctx.sync();
            for (int round = 0; round < ROUNDS; round++) {
                for (Collectives coll : new Collectives[]{all, odd}) {
                    int m = coll.members(), r = coll.rank();
                    if (r < 0) {
                        ctx.sync();
                        continue;
                    }
                    long roundKey = seed(key, round, m);
                    long[] counts = new long[m];
                    for (int k = 0; k < m; k++) counts[k] = count(roundKey, round, k, k);
                    long[] offsets = reversed(counts);
                    fill(src, 0, 40, seed(roundKey, r));
                    fill(dst, 0, area, seed(roundKey, r, -1));
                    fill(dst2, 0, area, seed(roundKey, r, -2));
                    coll.allgatherv(srcSlot, dstSlot, counts, offsets, false);
                    coll.allgatherv(srcSlot, dst2Slot, counts, offsets, true);
                    ctx.sync();
                    MemorySegment expected = bytes(area, seed(roundKey, r, -1));
                    MemorySegment expected2 = bytes(area, seed(roundKey, r, -2));
                    for (int k = 0; k < m; k++) {
                        MemorySegment block = bytes(counts[k], seed(roundKey, k));
                        MemorySegment.copy(block, 0, expected, offsets[k], counts[k]);
                        if (k != r) MemorySegment.copy(block, 0, expected2, offsets[k], counts[k]);
                    }
                    String what = "allgatherv over " + m + " members, p=" + p + " round " + round + " at pid " + s;
                    assertBytes(expected, 0, dst, 0, area, what);
                    assertBytes(expected2, 0, dst2, 0, area, what + " (excludeMyself)");
                }
            }
            all.close();
            odd.close();
        });
    }

    @ParameterizedTest(name = "p={0}")
    @FieldSource("COUNTS")
    void overlappingReceivePartsEndAsOneSendersPart(int p) {
        long part = 4096, tail = 64;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 4, 8L * p);
            Collectives coll = Collectives.init(ctx, 2, 0, 0);
            MemorySegment src = segment(part), dst = segment(part + tail), gathered = segment(part + tail);
            Memslot srcSlot = ctx.registerGlobal(src), dstSlot = ctx.registerGlobal(dst), gatheredSlot = ctx.registerGlobal(gathered);
            ctx.sync();
            fill(src, 0, part, seed(p, s));
            fill(dst, 0, part + tail, seed(p, s, -1));
            fill(gathered, 0, part + tail, seed(p, s, -2));
            long[] counts = new long[p], offsets = new long[p], overlapping = new long[p];
            java.util.Arrays.fill(counts, part);
            coll.alltoallv(srcSlot, counts, offsets, dstSlot, counts, overlapping);
            coll.allgatherv(srcSlot, gatheredSlot, counts, overlapping, false);
            ctx.sync();
            for (MemorySegment got : new MemorySegment[]{dst, gathered}) {
                String what = (got == dst ? "alltoallv" : "allgatherv") + " with every part at offset 0, p=" + p + " at pid " + s;
                int writer = -1;
                for (int k = 0; k < p && writer < 0; k++) {
                    if (got.asSlice(0, part).mismatch(bytes(part, seed(p, k))) < 0) writer = k;
                }
                org.junit.jupiter.api.Assertions.assertTrue(writer >= 0, what + ": the overlapped bytes are no sender's part");
                long before = got == dst ? -1 : -2;
                assertBytes(bytes(part + tail, seed(p, s, before)), part, got, part, tail, what + ": the bytes after the parts");
            }
            coll.close();
        });
    }

    @Test
    void aMismatchedCountIsReportedByTheReceiverAndTheObjectStaysUsable() {
        run(3, ctx -> {
            int s = ctx.pid(), p = ctx.nprocs();
            reserve(ctx, 3, 8L * p);
            Collectives coll = Collectives.init(ctx, 1, 0, 0);
            MemorySegment src = segment(64), dst = segment(64);
            Memslot srcSlot = ctx.registerGlobal(src), dstSlot = ctx.registerGlobal(dst);
            ctx.sync();
            long[] counts = {4, 4, 4}, offsets = {0, 8, 16};
            long[] wrong = s == 1 ? new long[]{5, 4, 4} : counts; // pid 0 sends pid 1 four bytes, not five
            if (s == 1) {
                assertRefused(IllegalStateException.class,
                        () -> coll.alltoallv(srcSlot, counts, offsets, dstSlot, wrong, offsets),
                        "alltoallv at pid 1", "pid 0 sends 4 bytes", "recvCounts[0] = 5");
            } else {
                coll.alltoallv(srcSlot, counts, offsets, dstSlot, counts, offsets);
            }
            ctx.sync();
            fill(src, 0, 64, seed(s));
            coll.alltoallv(srcSlot, counts, offsets, dstSlot, counts, offsets);
            ctx.sync();
            for (int k = 0; k < p; k++) {
                assertBytes(bytes(64, seed(k)), 8L * s, dst, 8L * k, 4, "part from pid " + k + " at pid " + s);
            }
            coll.close();
        });
    }

    @Test
    void badArgumentsAreRefusedNamingTheCallAndTheValues() {
        run(4, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 5, 32);
            Collectives coll = Collectives.init(ctx, 1, 0, 0);
            Collectives strided = Collectives.initStrided(ctx, 0, 4, 2, 1, 0, 0);
            MemorySegment src = segment(64), dst = segment(64);
            Memslot srcSlot = ctx.registerGlobal(src), dstSlot = ctx.registerGlobal(dst), local = ctx.registerLocal(segment(64));
            ctx.sync();
            long[] four = {1, 1, 1, 1}, offs = {0, 8, 16, 24};
            if (strided.rank() >= 0) {
                assertRefused(IllegalStateException.class,
                        () -> strided.alltoallv(srcSlot, new long[2], new long[2], dstSlot, new long[2], new long[2]),
                        "alltoallv at pid " + s, "are not all 4 processes");
            }
            assertRefused(IllegalArgumentException.class,
                    () -> coll.alltoallv(srcSlot, new long[3], new long[3], dstSlot, four, offs),
                    "alltoallv at pid " + s, "sendCounts has 3", "at least one per member (4)");
            assertRefused(IllegalArgumentException.class,
                    () -> coll.alltoallv(srcSlot, new long[]{1, 1, -2, 1}, offs, dstSlot, four, offs),
                    "negative sendCounts[2] = -2");
            assertRefused(IllegalArgumentException.class,
                    () -> coll.alltoallv(srcSlot, four, offs, dstSlot, four, new long[]{0, 8, 16, 64}),
                    "the part of member 3", "recvOffsets[3] = 64", "past the 64 registered bytes");
            assertRefused(IllegalArgumentException.class,
                    () -> coll.alltoallv(local, four, offs, dstSlot, four, offs), "src", "must be a global slot");
            assertRefused(IllegalArgumentException.class,
                    () -> coll.alltoallv(srcSlot, four, offs, srcSlot, four, offs), "src and dst are the same slot");
            long[] other = four.clone();
            other[s] = 2;
            assertRefused(IllegalArgumentException.class,
                    () -> coll.alltoallv(srcSlot, four, offs, dstSlot, other, offs),
                    "sendCounts[" + s + "] = 1 but recvCounts[" + s + "] = 2");
            assertRefused(IllegalArgumentException.class,
                    () -> coll.allgatherv(srcSlot, local, four, offs, false), "dst", "must be a global slot");
            assertRefused(IllegalArgumentException.class,
                    () -> coll.allgatherv(srcSlot, dstSlot, four, null, false), "allgatherv at pid " + s, "offsets is null");
            // nothing was queued: the superstep is empty, and the objects still work
            ctx.sync();
            fill(src, 0, 8, seed(s, 9));
            coll.allgatherv(srcSlot, dstSlot, new long[]{8, 8, 8, 8}, offs, true);
            ctx.sync();
            for (int k = 0; k < 4; k++) {
                if (k != s) assertBytes(bytes(8, seed(k, 9)), 0, dst, 8L * k, 8, "allgatherv block " + k + " at pid " + s);
            }
            coll.close();
            strided.close();
            ctx.deregister(local);
        });
    }
}
