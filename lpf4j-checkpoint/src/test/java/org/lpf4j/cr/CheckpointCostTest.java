package org.lpf4j.cr;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lpf4j.Lpf;
import org.lpf4j.spi.Components;
import org.lpf4j.spi.Parameters;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A checkpoint point at which none is due costs one sync and allocates nothing (per process
 * thread, {@code ThreadMXBean.getCurrentThreadAllocatedBytes}), and writes nothing.
 */
class CheckpointCostTest {
    private static final int WARM = 2000, MEASURED = 5000, MEASUREMENTS = 3;
    @TempDir Path dir;

    @AfterEach
    void clear() {
        Parameters.clear("lpf.cr");
        Parameters.clear("lpf.cr.files.dir");
    }

    @Test
    void aPointWithNothingDueAllocatesNothingAndCostsOneSuperstep() throws Exception {
        Components.installed();
        Parameters.set("lpf.cr", "files");
        Parameters.set("lpf.cr.files.dir", dir.toString());
        int p = 3;
        // Each process checks its own figures, so that the test holds wherever its processes run.
        Lpf.root().exec(p, WithCheckpoints.spmd("cost", (ctx, cr) -> {
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            cr.protect("data", MemorySegment.ofArray(new double[64]));
            cr.resume();
            for (int i = 0; i < WARM; i++) {
                cr.checkpoint();
            }
            // The fewest bytes of three measurements: code the JIT has not compiled yet allocates what it would
            // not, and any object allocated per point (16 bytes at least) would exceed 2 bytes per point in every
            // measurement. (In a Spark executor under load, 16 bytes per blocked point were the JDK's selector
            // boxing a socket's descriptor: docs/spark.md, "Executor option".)
            long fewest = Long.MAX_VALUE;
            for (int m = 0; m < MEASUREMENTS; m++) {
                long s0 = ctx.superstep();
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < MEASURED; i++) {
                    cr.checkpoint();
                }
                fewest = Math.min(fewest, mx.getCurrentThreadAllocatedBytes() - before);
                assertEquals(MEASURED, ctx.superstep() - s0, "one superstep per checkpoint point at pid " + ctx.pid());
            }
            // Seen on the threads engine: 0 to about 1 KiB in all, sporadically (the engine's waiting, the JIT).
            assertTrue(fewest < 2L * MEASURED, "pid " + ctx.pid() + " allocated at least " + fewest + " bytes in each of "
                    + MEASUREMENTS + " measurements of " + MEASURED + " checkpoint points with none due");
        }));
        try (var files = Files.list(dir)) {
            // A host framework's attempt (a Spark stage) also records how far its run got, in a reached- file.
            assertEquals(java.util.List.of(CheckpointDirectory.JOB_FILE),
                    files.map(f -> f.getFileName().toString()).filter(f -> !f.startsWith("reached-")).toList(),
                    "nothing written when nothing is due but the job's state (for lpf checkpoint)");
        }
        assertEquals(CheckpointDirectory.JobState.ENDED, new CheckpointDirectory(dir).job(), "closed: the job has ended");
    }
}
