package org.lpf4j.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Context;
import org.lpf4j.Lpf;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A prepared program's {@code reset(); run()} allocates no buffers once warm: its arrays, slots
 * and collectives objects are made by {@code prepare}; the bound allows a few sporadic small
 * allocations below the programs (under 64 bytes per run on average). Measured per process thread with
 * {@code ThreadMXBean.getCurrentThreadAllocatedBytes}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProgramAllocationTest {
    private static final int WARM = 200, MEASURED = 200;

    private static void assertRunsAllocateNothing(String name, Function<Context, BspRun> prepare) {
        assertRunsAllocateAtMost(name, 64, prepare);
    }

    private static void assertRunsAllocateAtMost(String name, long perRun, Function<Context, BspRun> prepare) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int p = 2;
        AtomicLongArray bytes = new AtomicLongArray(p);
        Lpf.root().exec(p, ctx -> {
            try (BspRun run = prepare.apply(ctx)) {
                for (int i = 0; i < WARM; i++) {
                    run.reset();
                    run.run();
                }
                ctx.sync();
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < MEASURED; i++) {
                    run.reset();
                    run.run();
                }
                bytes.set(ctx.pid(), mx.getCurrentThreadAllocatedBytes() - before);
                run.check();
            }
        });
        for (int q = 0; q < p; q++) {
            // Seen: 0 to a few KiB in all over hundreds of runs, sporadically, in programs that
            // call the collectives or get — far below one
            // array of a run's data; any per-run buffer would exceed this bound at once.
            assertTrue(bytes.get(q) < perRun * MEASURED, name + ": pid " + q + " allocated " + bytes.get(q)
                    + " bytes in " + MEASURED + " runs");
        }
    }

    @Test
    void sampleSort() {
        // Arrays.sort(long[]) itself allocates: JDK 25's DualPivotQuicksort.partition returns an
        // int[] per partitioning step (JFR: 384 bytes per run here, or nothing when escape analysis
        // removes it); nothing of the size of the data.
        assertRunsAllocateAtMost("SampleSort", 1024, ctx -> SampleSort.prepare(ctx, 2000, 3));
    }

    @Test
    void sampleSortThroughBuckets() {
        // 2 buckets of 2·10^4 values (160 KiB, the least array of the data's size a run could make);
        // Arrays.sort's partition arrays, as above, come to about 3 KiB per run here (parts of
        // 44 values and more are partitioned)
        assertRunsAllocateAtMost("SampleSort", 32 * 1024, ctx -> SampleSort.prepare(ctx, 40_000, 3));
    }

    @Test
    void matrixMultiply() { assertRunsAllocateNothing("MatrixMultiply", ctx -> MatrixMultiply.prepare(ctx, 24)); }

    @Test
    void fft() { assertRunsAllocateNothing("Fft", ctx -> Fft.prepare(ctx, 1 << 10, 3)); }

    @Test
    void pageRank() { assertRunsAllocateNothing("PageRank", ctx -> PageRank.prepare(ctx, 7, 4, 3, 1)); }
}
