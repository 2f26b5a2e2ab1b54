package org.lpf4j.coll;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.FieldSource;
import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.lpf4j.coll.Harness.assertBytes;
import static org.lpf4j.coll.Harness.assertUntouched;
import static org.lpf4j.coll.Harness.bytes;
import static org.lpf4j.coll.Harness.fill;
import static org.lpf4j.coll.Harness.reserve;
import static org.lpf4j.coll.Harness.roots;
import static org.lpf4j.coll.Harness.run;
import static org.lpf4j.coll.Harness.seed;
import static org.lpf4j.coll.Harness.segment;

/**
 * Broadcast (every variant), gather, scatter, allgather and alltoall against a sequential
 * reference: random data, p = 1..8, every root, sizes 0, 1, odd, and 1 MiB.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DataMovementTest {
    static final int[] ONE_TO_EIGHT = Harness.notAbove(1, 2, 3, 4, 5, 6, 7, 8);
    private static final long[] SIZES = {0, 1, 13, 1001};
    private static final long MIB = 1 << 20;
    /** Bytes past the used area that must stay untouched. */
    private static final long SLACK = 8;

    static Stream<Arguments> variantsAndP() {
        return Stream.of(Harness.VARIANTS).flatMap(a -> IntStream.of(Harness.PROCS).mapToObj(p -> Arguments.of(a, p)));
    }

    @ParameterizedTest(name = "{0} p={1}")
    @MethodSource("variantsAndP")
    void broadcastFromEveryRootAtEverySize(Algorithm a, int p) {
        broadcasts(p, a, SIZES, false);
    }

    @ParameterizedTest
    @EnumSource(names = {"DIRECT", "TWO_PHASE", "TREE"})
    void broadcastOfOneMebibyte(Algorithm a) {
        broadcasts(4, a, new long[]{MIB + 5}, true);
        broadcasts(7, a, new long[]{MIB + 5}, true);
    }

    @Test
    void broadcastWithSrcEqualToDst() {
        run(5, ctx -> {
            reserve(ctx, 2, 6);
            Collectives coll = Collectives.init(ctx, 1, 0, 100);
            MemorySegment x = segment(100);
            Memslot xs = ctx.registerGlobal(x);
            ctx.sync();
            if (ctx.pid() == 3) fill(x, 0, 99, 42);
            coll.broadcast(xs, xs, 99, 3);
            ctx.sync();
            assertBytes(bytes(99, 42), 0, x, 0, 99, "pid " + ctx.pid());
            coll.close();
        });
    }

    /** Broadcasts of every size from every root (or root p/2 only), checked everywhere. */
    private static void broadcasts(int p, Algorithm a, long[] sizes, boolean oneRoot) {
        long max = sizes[sizes.length - 1];
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 3, p + 1);
            Collectives coll = Collectives.init(ctx, 1, 0, max).algorithm(a);
            MemorySegment src = segment(max), dst = segment(max + SLACK);
            Memslot srcSlot = ctx.registerGlobal(src), dstSlot = ctx.registerLocal(dst);
            ctx.sync();
            for (int root : oneRoot ? new int[] {p / 2} : roots(p)) {
                for (long size : sizes) {
                    long key = seed(p, root, size), mark = seed(key, s);
                    if (s == root) fill(src, 0, size, key);
                    fill(dst, 0, max + SLACK, mark);
                    coll.broadcast(srcSlot, dstSlot, size, root);
                    ctx.sync();
                    String what = "broadcast " + a + " p=" + p + " root=" + root + " size=" + size + " at pid " + s;
                    if (s == root) {
                        assertUntouched(dst, 0, max + SLACK, mark, 0, what + ": the root's dst");
                    } else {
                        assertBytes(bytes(size, key), 0, dst, 0, size, what);
                        assertUntouched(dst, size, max + SLACK - size, mark, size, what + ": dst past size");
                    }
                }
            }
            coll.close();
        });
    }

    @ParameterizedTest(name = "p={0}")
    @FieldSource("ONE_TO_EIGHT")
    void gatherScatterAllgatherAlltoallAtEveryRootAndSize(int p) {
        exchanges(p, SIZES, false);
    }

    @Test
    void exchangesOfOneMebibyte() {
        exchanges(3, new long[]{MIB}, true);
        exchanges(4, new long[]{MIB + 1}, true);
    }

    /** Each size, each root: gather, scatter, allgather (both ways) and alltoall, one per superstep. */
    private static void exchanges(int p, long[] sizes, boolean oneRoot) {
        long max = sizes[sizes.length - 1], area = p * max + SLACK;
        run(p, ctx -> {
            int s = ctx.pid();
            reserve(ctx, 5, p + 1);
            Collectives coll = Collectives.init(ctx, 1, 0, max);
            MemorySegment lsrc = segment(max), gsrc = segment(area), ldst = segment(max + SLACK), gdst = segment(area);
            Memslot lsrcSlot = ctx.registerLocal(lsrc), gsrcSlot = ctx.registerGlobal(gsrc);
            Memslot ldstSlot = ctx.registerLocal(ldst), gdstSlot = ctx.registerGlobal(gdst);
            ctx.sync();
            for (long size : sizes) {
                for (int root : oneRoot ? new int[] {p - 1} : roots(p)) {
                    long key = seed(p, root, size);
                    String at = " p=" + p + " root=" + root + " size=" + size + " at pid " + s;
                    // gather: block k of the root's dst from pid k
                    fill(lsrc, 0, size, seed(key, s));
                    fill(gdst, 0, area, seed(key, -1, s));
                    coll.gather(lsrcSlot, gdstSlot, size, root);
                    ctx.sync();
                    for (int k = 0; k < p; k++) {
                        if (s == root && k != root) {
                            assertBytes(bytes(size, seed(key, k)), 0, gdst, k * size, size, "gather block " + k + at);
                        } else {
                            assertUntouched(gdst, k * size, size, seed(key, -1, s), k * size, "gather block " + k + at);
                        }
                    }
                    assertUntouched(gdst, p * size, SLACK, seed(key, -1, s), p * size, "gather past p*size" + at);
                    // scatter: block s of the root's src to pid s
                    if (s == root) fill(gsrc, 0, p * size, key);
                    fill(ldst, 0, max + SLACK, seed(key, -2, s));
                    coll.scatter(gsrcSlot, ldstSlot, size, root);
                    ctx.sync();
                    if (s == root) {
                        assertUntouched(ldst, 0, max + SLACK, seed(key, -2, s), 0, "scatter root's dst" + at);
                    } else {
                        assertBytes(bytes(p * size, key), s * size, ldst, 0, size, "scatter" + at);
                        assertUntouched(ldst, size, SLACK, seed(key, -2, s), size, "scatter past size" + at);
                    }
                    allgatherAndAlltoall(ctx, coll, key, size, at, lsrc, lsrcSlot, gsrc, gsrcSlot, gdst, gdstSlot);
                }
            }
            coll.close();
        });
    }

    private static void allgatherAndAlltoall(Context ctx, Collectives coll, long key, long size, String at,
                                             MemorySegment lsrc, Memslot lsrcSlot, MemorySegment gsrc, Memslot gsrcSlot,
                                             MemorySegment gdst, Memslot gdstSlot) {
        int s = ctx.pid(), p = ctx.nprocs();
        long area = gdst.byteSize();
        for (boolean exclude : new boolean[]{true, false}) {
            fill(lsrc, 0, size, seed(key, s, 7));
            fill(gdst, 0, area, seed(key, -3, s));
            coll.allgather(lsrcSlot, gdstSlot, size, exclude);
            ctx.sync();
            for (int k = 0; k < p; k++) {
                if (k == s && exclude) {
                    assertUntouched(gdst, k * size, size, seed(key, -3, s), k * size, "allgather own block" + at);
                } else {
                    assertBytes(bytes(size, seed(key, k, 7)), 0, gdst, k * size, size, "allgather block " + k + at);
                }
            }
            assertUntouched(gdst, p * size, area - p * size, seed(key, -3, s), p * size, "allgather past p*size" + at);
        }
        fill(gsrc, 0, area, seed(key, s, 8));
        fill(gdst, 0, area, seed(key, -4, s));
        coll.alltoall(gsrcSlot, gdstSlot, size);
        ctx.sync();
        for (int k = 0; k < p; k++) {
            if (k == s) {
                assertUntouched(gdst, k * size, size, seed(key, -4, s), k * size, "alltoall diagonal" + at);
            } else {
                assertBytes(bytes(area, seed(key, k, 8)), s * size, gdst, k * size, size, "alltoall block " + k + at);
            }
        }
        assertUntouched(gsrc, 0, area, seed(key, s, 8), 0, "alltoall src" + at);
    }
}
