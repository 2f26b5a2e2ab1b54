package org.lpf4j.coll;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.spi.kit.CountingContext;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lpf4j.coll.Harness.assertBytes;
import static org.lpf4j.coll.Harness.assertRefused;
import static org.lpf4j.coll.Harness.assertUntouched;
import static org.lpf4j.coll.Harness.bytes;
import static org.lpf4j.coll.Harness.fill;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.roots;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.seed;
import static org.lpf4j.coll.Harness.segment;

/**
 * The slot rules of broadcast, gather and scatter in the specification:
 * <ul>
 * <li>"At PID root, the dst (gather: src) memory slot may equal LPF_INVALID_MEMSLOT": the root
 *     passes null for the slot it does not use, in every variant, on objects over all processes
 *     and on strided ones, and the data still arrives;</li>
 * <li>"It is legal to have that src equals dst" for gather and scatter (broadcast:
 *     {@link DataMovementTest#broadcastWithSrcEqualToDst});</li>
 * <li>the slots that "must be global" (broadcast's and scatter's src, gather's dst) are checked:
 *     a local one is refused with an exception naming the call, at every member, before anything
 *     is queued, synced or counted towards maxCalls.</li>
 * </ul>
 * p = 1..8 (the refusals: 2..8), every root.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlotRulesTest {
    static final int[] ONE_TO_EIGHT = Harness.notAbove(1, 2, 3, 4, 5, 6, 7, 8);
    static final int[] TWO_TO_EIGHT = Harness.notAbove(2, 3, 4, 5, 6, 7, 8);
    /** Bytes per block: odd, so blocks are not aligned. */
    private static final long SIZE = 13;
    /** Bytes past the used area that must stay untouched. */
    private static final long SLACK = 8;

    static Stream<Arguments> variantsAndP() {
        return DataMovementTest.variantsAndP();
    }

    static Stream<Arguments> stridedAndP() {
        return Stream.of(false, true).flatMap(st -> IntStream.of(ONE_TO_EIGHT).mapToObj(p -> Arguments.of(st, p)));
    }

    // ---------------------------------------------------------------------------------------
    // the unused slot at the root may be null
    // ---------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("variantsAndP")
    void broadcastTakesANullDstAtTheRootInEveryVariant(Algorithm a, int p) {
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 3, 2L * p);
            Collectives coll = Collectives.init(ctx, 1, 0, SIZE).algorithm(a);
            MemorySegment src = segment(SIZE), dst = segment(SIZE + SLACK);
            Memslot srcSlot = ctx.registerGlobal(src), dstSlot = ctx.registerLocal(dst);
            ctx.sync();
            for (int root : roots(p)) {
                long key = seed(p, root, 1);
                fill(src, 0, SIZE, s == root ? key : seed(key, s, 1));
                fill(dst, 0, SIZE + SLACK, seed(key, s));
                coll.broadcast(srcSlot, s == root ? null : dstSlot, SIZE, root);
                ctx.sync();
                String at = "broadcast " + a + " p=" + p + " root=" + root + " at pid " + s;
                if (s == root) {
                    assertUntouched(src, 0, SIZE, key, 0, at + ": the root's src");
                } else {
                    assertBytes(bytes(SIZE, key), 0, dst, 0, SIZE, at);
                    assertUntouched(dst, SIZE, SLACK, seed(key, s), SIZE, at + ": dst past size");
                }
            }
            coll.close();
            ctx.deregister(srcSlot);
            ctx.deregister(dstSlot);
        });
    }

    /**
     * Gather (null src at the root), scatter (null dst at the root) and a broadcast (null dst at
     * the root; DIRECT, the only variant of a strided object) from every member as root.
     * Strided: the members are pids 1, 3, 5, … (pid 0 alone for p = 1).
     */
    @ParameterizedTest(name = "strided={0} p={1}")
    @MethodSource("stridedAndP")
    void gatherAndScatterTakeANullUnusedSlotAtTheRoot(boolean strided, int p) {
        int lo = strided && p > 1 ? 1 : 0, stride = strided ? 2 : 1;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 5, 2L * p);
            Collectives coll = strided ? Collectives.initStrided(ctx, lo, p, stride, 1, 0, SIZE)
                    : Collectives.init(ctx, 1, 0, SIZE);
            int members = new Members(p, s, lo, p, stride).count, r = coll.rank();
            long area = members * SIZE + SLACK;
            MemorySegment gsrc = segment(area), lsrc = segment(SIZE), gdst = segment(area), ldst = segment(SIZE + SLACK);
            Memslot gsrcSlot = ctx.registerGlobal(gsrc), lsrcSlot = ctx.registerLocal(lsrc);
            Memslot gdstSlot = ctx.registerGlobal(gdst), ldstSlot = ctx.registerLocal(ldst);
            ctx.sync();
            for (int rootRank = 0; rootRank < members; rootRank++) {
                int root = lo + rootRank * stride;
                long key = seed(p, root, strided ? 1 : 0);
                boolean isRoot = s == root;
                String at = " strided=" + strided + " p=" + p + " root=" + root + " at pid " + s;
                // gather: the root passes src = null
                fill(lsrc, 0, SIZE, seed(key, s));
                fill(gdst, 0, area, seed(key, -1, s));
                if (r >= 0) coll.gather(isRoot ? null : lsrcSlot, gdstSlot, SIZE, root);
                ctx.sync();
                for (int k = 0; k < members; k++) {
                    if (isRoot && k != rootRank) {
                        assertBytes(bytes(SIZE, seed(key, lo + k * stride)), 0, gdst, k * SIZE, SIZE, "gather block " + k + at);
                    } else {
                        assertUntouched(gdst, k * SIZE, SIZE, seed(key, -1, s), k * SIZE, "gather block " + k + at);
                    }
                }
                assertUntouched(gdst, members * SIZE, SLACK, seed(key, -1, s), members * SIZE, "gather past P*size" + at);
                // scatter: the root passes dst = null
                fill(gsrc, 0, area, isRoot ? key : seed(key, -2, s));
                fill(ldst, 0, SIZE + SLACK, seed(key, -3, s));
                if (r >= 0) coll.scatter(gsrcSlot, isRoot ? null : ldstSlot, SIZE, root);
                ctx.sync();
                if (r >= 0 && !isRoot) {
                    assertBytes(bytes(area, key), r * SIZE, ldst, 0, SIZE, "scatter" + at);
                    assertUntouched(ldst, SIZE, SLACK, seed(key, -3, s), SIZE, "scatter past size" + at);
                } else {
                    assertUntouched(ldst, 0, SIZE + SLACK, seed(key, -3, s), 0, "scatter dst" + at);
                }
                assertUntouched(gsrc, 0, area, isRoot ? key : seed(key, -2, s), 0, "scatter src" + at);
                // broadcast (one-superstep on a strided object): the root passes dst = null
                fill(gsrc, 0, SIZE, isRoot ? seed(key, 4) : seed(key, -4, s));
                fill(ldst, 0, SIZE + SLACK, seed(key, -5, s));
                if (r >= 0) coll.broadcast(gsrcSlot, isRoot ? null : ldstSlot, SIZE, root);
                ctx.sync();
                if (r >= 0 && !isRoot) {
                    assertBytes(bytes(SIZE, seed(key, 4)), 0, ldst, 0, SIZE, "broadcast" + at);
                    assertUntouched(ldst, SIZE, SLACK, seed(key, -5, s), SIZE, "broadcast past size" + at);
                } else {
                    assertUntouched(ldst, 0, SIZE + SLACK, seed(key, -5, s), 0, "broadcast dst" + at);
                }
            }
            coll.close();
            for (Memslot m : new Memslot[]{gsrcSlot, lsrcSlot, gdstSlot, ldstSlot}) ctx.deregister(m);
        });
    }

    // ---------------------------------------------------------------------------------------
    // src equal to dst
    // ---------------------------------------------------------------------------------------

    /**
     * Gather with src = dst (the specification's recommended usage: each member's block already
     * in place): the root's blocks k ≠ root receive the first size bytes of member k's area, its
     * own block and the non-roots' areas stay as they were.
     */
    @ParameterizedTest(name = "p={0}")
    @FieldSource("ONE_TO_EIGHT")
    void gatherWithSrcEqualToDst(int p) {
        long area = p * SIZE + SLACK;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 2, 2L * p);
            Collectives coll = Collectives.init(ctx, 1, 0, SIZE);
            MemorySegment x = segment(area);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            for (int root : roots(p)) {
                long key = seed(p, root, 5);
                fill(x, 0, area, seed(key, s));
                coll.gather(xs, xs, SIZE, root);
                ctx.sync();
                String at = "gather src=dst p=" + p + " root=" + root + " at pid " + s;
                if (s == root) {
                    for (int k = 0; k < p; k++) {
                        if (k == root) assertUntouched(x, k * SIZE, SIZE, seed(key, s), k * SIZE, at + ": the root's block");
                        else assertBytes(bytes(SIZE, seed(key, k)), 0, x, k * SIZE, SIZE, at + ": block " + k);
                    }
                    assertUntouched(x, p * SIZE, SLACK, seed(key, s), p * SIZE, at + ": past P*size");
                } else {
                    assertUntouched(x, 0, area, seed(key, s), 0, at);
                }
            }
            coll.close();
            ctx.deregister(xs);
        });
    }

    /**
     * Scatter with src = dst: every non-root's first size bytes receive its block of the root's
     * area; the root's area and the rest of the non-roots' stay as they were.
     */
    @ParameterizedTest(name = "p={0}")
    @FieldSource("ONE_TO_EIGHT")
    void scatterWithSrcEqualToDst(int p) {
        long area = p * SIZE + SLACK;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 2, 2L * p);
            Collectives coll = Collectives.init(ctx, 1, 0, SIZE);
            MemorySegment x = segment(area);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            for (int root : roots(p)) {
                long key = seed(p, root, 6);
                fill(x, 0, area, s == root ? key : seed(key, s));
                coll.scatter(xs, xs, SIZE, root);
                ctx.sync();
                String at = "scatter src=dst p=" + p + " root=" + root + " at pid " + s;
                if (s == root) {
                    assertUntouched(x, 0, area, key, 0, at + ": the root's area");
                } else {
                    assertBytes(bytes(area, key), s * SIZE, x, 0, SIZE, at);
                    assertUntouched(x, SIZE, area - SIZE, seed(key, s), SIZE, at + ": past size");
                }
            }
            coll.close();
            ctx.deregister(xs);
        });
    }

    // ---------------------------------------------------------------------------------------
    // a local slot where the specification says "must be global"
    // ---------------------------------------------------------------------------------------

    /**
     * Every member passes a local slot where a global one is required (broadcast's src in every
     * variant, scatter's src, gather's dst): each call is refused at every member, root or not,
     * with an {@link IllegalArgumentException} naming the call, the pid, the argument and the
     * rule; no put, get or sync is made, and the refusals do not count towards maxCalls = 1: a
     * good call of each kind follows in its own superstep and delivers.
     */
    @ParameterizedTest(name = "p={0}")
    @FieldSource("TWO_TO_EIGHT")
    void aLocalSlotWhereTheSpecificationSaysGlobalIsRefusedWithNoEffect(int p) {
        run(p, raw -> {
            CountingContext ctx = new CountingContext(raw);
            int s = ctx.pid();
            reserve(ctx, 5, 2L * p);
            Collectives coll = Collectives.init(ctx, 1, 0, SIZE);
            long area = p * SIZE;
            MemorySegment gsrc = segment(area), lsrc = segment(area), gdst = segment(area), ldst = segment(area);
            Memslot gsrcSlot = ctx.registerGlobal(gsrc), lsrcSlot = ctx.registerLocal(lsrc);
            Memslot gdstSlot = ctx.registerGlobal(gdst), ldstSlot = ctx.registerLocal(ldst);
            ctx.sync();
            for (int root : roots(p)) {
                int syncs = ctx.syncs(), requests = ctx.requests();
                long calls = coll.callCount();
                String pid = " at pid " + s;
                for (Algorithm a : Harness.VARIANTS) {
                    coll.algorithm(a);
                    assertRefused(IllegalArgumentException.class, () -> coll.broadcast(lsrcSlot, ldstSlot, SIZE, root),
                            "broadcast" + pid, "src " + lsrcSlot, "must be a global slot");
                }
                coll.algorithm(Algorithm.AUTO);
                assertRefused(IllegalArgumentException.class, () -> coll.scatter(lsrcSlot, ldstSlot, SIZE, root),
                        "scatter" + pid, "src " + lsrcSlot, "must be a global slot");
                assertRefused(IllegalArgumentException.class, () -> coll.gather(lsrcSlot, ldstSlot, SIZE, root),
                        "gather" + pid, "dst " + ldstSlot, "must be a global slot");
                String at = "p=" + p + " root=" + root + pid;
                assertEquals(requests, ctx.requests(), "the refused calls made puts or gets, " + at);
                assertEquals(syncs, ctx.syncs(), "the refused calls synced, " + at);
                assertEquals(calls, coll.callCount(), "the refused calls counted as calls, " + at);
                goodCalls(ctx, coll, root, gsrc, gsrcSlot, lsrc, lsrcSlot, gdst, gdstSlot, ldst, ldstSlot);
            }
            coll.close();
            for (Memslot m : new Memslot[]{gsrcSlot, lsrcSlot, gdstSlot, ldstSlot}) ctx.deregister(m);
        });
    }

    /** A broadcast, a scatter and a gather with the right slots, one superstep each, checked. */
    private static void goodCalls(Context ctx, Collectives coll, int root, MemorySegment gsrc, Memslot gsrcSlot,
                                  MemorySegment lsrc, Memslot lsrcSlot, MemorySegment gdst, Memslot gdstSlot,
                                  MemorySegment ldst, Memslot ldstSlot) {
        int s = ctx.pid(), p = ctx.nprocs();
        long area = p * SIZE, key = seed(p, root, 7);
        String at = " after the refusals, p=" + p + " root=" + root + " at pid " + s;
        fill(gsrc, 0, area, key);
        ldst.fill((byte) 0);
        coll.broadcast(gsrcSlot, ldstSlot, SIZE, root);
        ctx.sync();
        if (s != root) assertBytes(bytes(SIZE, key), 0, ldst, 0, SIZE, "broadcast" + at);
        coll.scatter(gsrcSlot, ldstSlot, SIZE, root);
        ctx.sync();
        if (s != root) assertBytes(bytes(area, key), s * SIZE, ldst, 0, SIZE, "scatter" + at);
        fill(lsrc, 0, SIZE, seed(key, s));
        gdst.fill((byte) 0);
        coll.gather(lsrcSlot, gdstSlot, SIZE, root);
        ctx.sync();
        if (s == root) {
            for (int k = 0; k < p; k++) {
                if (k != root) assertBytes(bytes(SIZE, seed(key, k)), 0, gdst, k * SIZE, SIZE, "gather block " + k + at);
            }
        }
    }
}
