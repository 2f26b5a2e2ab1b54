package org.lpf4j.coll;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.debug.Debug;
import org.lpf4j.engine.threads.ThreadsEngine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lpf4j.coll.Harness.segment;

/**
 * The documented queue-entry numbers are sufficient: every operation and variant (alltoallv
 * only over all processes, the only objects that have it) runs
 * {@code maxCalls} (1 and 3) times in one superstep under the debug layer (its capacity and conflict
 * checks must find nothing) with the message queue sized exactly by
 * {@link Collectives#queueEntries()}, while {@link SpecQueue} enforces the specification's count
 * (origin plus target) against {@code maxCalls} times the operation's documented number. The
 * results are checked too.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QueueBoundsTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    /** Longs per member block; 5 makes uneven pieces for most P. */
    private static final int N = 5;
    private static final long BYTES = N * 8L;
    private static final String[] OPS = {"broadcast", "gather", "scatter", "allgather", "allgatherAll", "alltoall",
            "reduce", "allreduce", "combine", "allcombine", "allgatherv", "allgathervAll", "alltoallv"};

    @ParameterizedTest(name = "p={0} strided={1}")
    @CsvSource({"1,false", "2,false", "3,false", "5,false", "8,false", "1,true", "2,true", "3,true", "5,true", "8,true"})
    void everyOperationFitsItsDocumentedEntriesUnderTheDebugLayer(int p, boolean strided) {
        int lo = strided && p > 1 ? 1 : 0, stride = strided ? 2 : 1;
        int members = new Members(p, 0, lo, p, stride).count;
        for (String op : OPS) {
            if (strided && op.equals("alltoallv")) continue; // refused on a strict subset (ValidationTest's kind of test)
            boolean variants = !strided && List.of(ForcedAlgorithms.OPERATIONS).contains(op);
            for (Algorithm a : variants ? Harness.VARIANTS : new Algorithm[]{Algorithm.DIRECT}) {
                long documented = documented(op, a, members);
                assertTrue(documented <= 2L * members, op + " " + a + ": documented " + documented + " > 2P");
                for (int calls : new int[]{1, 3}) { // 1 makes each documented number tight enough to be tested
                    SpecQueue spec = new SpecQueue(p, calls * documented);
                    Debug.wrap(ThreadsEngine.root()).exec(p, raw -> spec.run(raw, ctx -> run(ctx, strided, lo, stride, op, a, calls)));
                }
            }
        }
    }

    /** The largest queue entries the Javadoc names for one call of {@code op} at any member, per superstep. */
    private static long documented(String op, Algorithm a, int members) {
        long p = members;
        Groups g = new Groups(Math.max(1, members));
        long groups = g.count, c = g.maxSize();
        return switch (op) {
            case "broadcast" -> switch (a) {
                case TWO_PHASE -> 2 * p - 1;
                case TREE -> Math.max(groups - 1, c + 1);
                default -> p - 1;
            };
            case "gather", "scatter" -> p - 1;
            case "allgather", "alltoall", "allgatherv" -> 2 * p - 2;
            case "allgatherAll", "allgathervAll", "alltoallv" -> 2 * p;
            case "reduce" -> switch (a) {
                case TREE -> Math.max(Math.max(c - 1, groups - 1), 1);
                default -> p - 1;
            };
            case "combine" -> switch (a) {
                case TWO_PHASE -> Math.max(2 * p - 2, p - 1);
                case TREE -> Math.max(Math.max(c - 1, groups - 1), 1);
                default -> p - 1;
            };
            default -> a == Algorithm.TREE ? Math.max(2 * c - 2, 3 * (groups - 1)) : 2 * p - 2;
        };
    }

    private static void run(Context ctx, boolean strided, int lo, int stride, String op, Algorithm a, int calls) {
        int p = ctx.nprocs();
        ctx.resizeMemoryRegister(1 + 2 * calls);
        ctx.sync();
        Collectives coll = strided ? Collectives.initStrided(ctx, lo, p, stride, calls, 8, BYTES)
                : Collectives.init(ctx, calls, 8, BYTES);
        int members = coll.members(), r = coll.rank();
        long entries = 2L * calls * members;
        if (r >= 0) assertEquals(entries, coll.queueEntries(), "queueEntries at pid " + ctx.pid());
        ctx.resizeMessageQueue(entries); // exactly the members' queueEntries(), equal on every process
        MemorySegment[] src = new MemorySegment[calls], dst = new MemorySegment[calls];
        Memslot[] srcSlot = new Memslot[calls], dstSlot = new Memslot[calls];
        for (int k = 0; k < calls; k++) {
            src[k] = segment(members * BYTES);
            dst[k] = segment(members * BYTES);
            srcSlot[k] = ctx.registerGlobal(src[k]);
            dstSlot[k] = ctx.registerGlobal(dst[k]);
        }
        ctx.sync();
        long[] counts = new long[Math.max(members, 0)], offsets = new long[counts.length];
        for (int j = 0; j < counts.length; j++) {
            counts[j] = BYTES;
            offsets[j] = j * BYTES;
        }
        if (r >= 0) {
            coll.algorithm(a);
            int rootRank = members - 1, root = lo + rootRank * stride;
            for (int k = 0; k < calls; k++) {
                for (int i = 0; i < members * N; i++) src[k].set(LONG, i * 8L, v(k, r, i));
            }
            for (int k = 0; k < calls; k++) {
                switch (op) {
                    case "broadcast" -> coll.broadcast(srcSlot[k], dstSlot[k], BYTES, root);
                    case "gather" -> coll.gather(srcSlot[k], dstSlot[k], BYTES, root);
                    case "scatter" -> coll.scatter(srcSlot[k], dstSlot[k], BYTES, root);
                    case "allgather" -> coll.allgather(srcSlot[k], dstSlot[k], BYTES, true);
                    case "allgatherAll" -> coll.allgather(srcSlot[k], dstSlot[k], BYTES, false);
                    case "alltoall" -> coll.alltoall(srcSlot[k], dstSlot[k], BYTES);
                    case "allgatherv" -> coll.allgatherv(srcSlot[k], dstSlot[k], counts, offsets, true);
                    case "allgathervAll" -> coll.allgatherv(srcSlot[k], dstSlot[k], counts, offsets, false);
                    case "alltoallv" -> coll.alltoallv(srcSlot[k], counts, offsets, dstSlot[k], counts, offsets);
                    case "reduce" -> coll.reduce(src[k], srcSlot[k], 8, Ops.LONG_SUM, root);
                    case "allreduce" -> coll.allreduce(src[k], srcSlot[k], 8, Ops.LONG_SUM);
                    case "combine" -> coll.combine(src[k], srcSlot[k], N, 8, Ops.LONG_SUM, root);
                    default -> coll.allcombine(src[k], srcSlot[k], N, 8, Ops.LONG_SUM);
                }
            }
            ctx.sync();
            for (int k = 0; k < calls; k++) check(op, k, members, r, rootRank, src[k], dst[k], op + " " + a + " call " + k
                    + " at pid " + ctx.pid() + " of " + p);
        } else {
            ctx.sync();
        }
        coll.close();
        for (int k = 0; k < calls; k++) {
            ctx.deregister(srcSlot[k]);
            ctx.deregister(dstSlot[k]);
        }
    }

    private static long v(int call, int rank, int i) {
        return call * 1_000_000L + rank * 1000L + i;
    }

    private static void check(String op, int k, int members, int r, int root, MemorySegment src, MemorySegment dst,
                              String at) {
        for (int j = 0; j < members; j++) {
            for (int i = 0; i < N; i++) {
                long got = dst.get(LONG, (j * N + i) * 8L);
                switch (op) {
                    case "broadcast" -> { if (r != root && j == 0) assertEquals(v(k, root, i), got, at); }
                    case "gather" -> { if (r == root && j != root) assertEquals(v(k, j, i), got, at); }
                    case "scatter" -> { if (r != root && j == 0) assertEquals(v(k, root, r * N + i), got, at); }
                    case "allgather", "allgatherAll", "allgatherv", "allgathervAll" -> {
                        if (j != r || op.endsWith("All")) assertEquals(v(k, j, i), got, at);
                    }
                    case "alltoall", "alltoallv" -> { if (j != r || op.equals("alltoallv")) assertEquals(v(k, j, r * N + i), got, at); }
                    default -> {
                        boolean all = op.startsWith("all"), element = op.endsWith("reduce");
                        if (j > 0 || (element && i > 0) || (!all && r != root)) continue;
                        long sum = 0;
                        for (int q = 0; q < members; q++) sum += v(k, q, i);
                        assertEquals(sum, src.get(LONG, i * 8L), at);
                    }
                }
            }
        }
    }
}
