package org.lpf4j.coll;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Steady-state calls allocate nothing: a loop of same-sized operations with the same operator
 * (the combining attribute is cached, the algorithm choice is cached) on every variant.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AllocationTest {
    private static final int ROUNDS = 500;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long allocated() { return THREADS.getCurrentThreadAllocatedBytes(); }

    @ParameterizedTest
    @EnumSource(names = {"AUTO", "DIRECT", "TWO_PHASE", "TREE"})
    void steadyStateCallsAllocateNothing(Algorithm a) {
        int p = 5;
        Harness.run(p, ctx -> {
            Harness.reserve(ctx, 4, 8L * p);
            Collectives coll = Collectives.init(ctx, 2, 8, 800).algorithm(a);
            MemorySegment x = Arena.ofShared().allocate(800L * p, 8), y = Arena.ofShared().allocate(800L * p, 8);
            Memslot sx = ctx.registerGlobal(x), sy = ctx.registerGlobal(y);
            ctx.sync();
            String[] names = {"broadcast", "reduce", "allreduce", "combine", "allcombine", "allgather", "alltoall"};
            long[] spent = new long[names.length];
            for (int r = 0; r < 2 * ROUNDS; r++) {
                boolean measure = r >= ROUNDS; // the first half warms up
                long t0 = allocated();
                coll.broadcast(sx, sy, 800, r % p);
                long t1 = allocated();
                coll.reduce(x, sx, 8, Ops.LONG_SUM, r % p);
                long t2 = allocated();
                ctx.sync();
                long t3 = allocated();
                coll.allreduce(x, sx, 8, Ops.LONG_MAX);
                long t4 = allocated();
                ctx.sync();
                long t5 = allocated();
                coll.combine(x, sx, 100, 8, Ops.DOUBLE_SUM, r % p);
                long t6 = allocated();
                ctx.sync();
                long t7 = allocated();
                coll.allcombine(x, sx, 100, 8, Ops.DOUBLE_SUM);
                long t8 = allocated();
                ctx.sync();
                long t9 = allocated();
                coll.allgather(sx, sy, 8, true);
                long t10 = allocated();
                coll.alltoall(sx, sy, 8);
                long t11 = allocated();
                ctx.sync();
                if (measure) {
                    spent[0] += t1 - t0;
                    spent[1] += t2 - t1;
                    spent[2] += t4 - t3;
                    spent[3] += t6 - t5;
                    spent[4] += t8 - t7;
                    spent[5] += t10 - t9;
                    spent[6] += t11 - t10;
                }
            }
            // ROUNDS calls each: one allocation per call would show as >= 500 x 16 bytes.
            for (int i = 0; i < names.length; i++) {
                assertTrue(spent[i] < 4096, a + ": " + ROUNDS + " " + names[i] + " calls allocated " + spent[i] + " bytes at pid " + ctx.pid());
            }
            coll.close();
        });
    }
}
