package org.lpf4j.examples;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;
import org.lpf4j.cr.Restarts;
import org.lpf4j.spi.Parameters;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Heat on the threads engine: the grid equals the sequential Jacobi bit for bit at p = 1 … 8 (p
 * not dividing n, p &gt; n), and after one process threw mid-run a restart resumes from a
 * checkpoint and still ends with the same bits ({@code files} and {@code memory} modules).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeatTest {
    private static final String[] KEYS = {"lpf.cr", "lpf.cr.files.dir", "lpf.cr.files.every", "lpf.cr.memory.every"};
    @TempDir Path dir;

    @AfterEach
    void clear() { for (String k : KEYS) Parameters.clear(k); }

    /** A Heat run whose processes' rows are collected into one grid, and which may fail once. */
    private static final class Job implements Spmd {
        private static final long serialVersionUID = 1L;
        final int n, steps, victim, failAt;
        final double[] grid;
        final AtomicInteger runs = new AtomicInteger(), resumedAt = new AtomicInteger(-2);
        volatile String summary;

        Job(int n, int steps, int victim, int failAt) {
            this.n = n;
            this.steps = steps;
            this.victim = victim;
            this.failAt = failAt;
            this.grid = new double[n * n];
        }

        @Override
        public void run(org.lpf4j.Context ctx) {
            int pid = ctx.pid();
            if (pid == 0) runs.incrementAndGet();
            try (Heat.Instance run = Heat.prepare(ctx, n, steps)) {
                run.stepHook = t -> {
                    if (pid == victim && t == failAt && runs.get() == 1) {
                        throw new IllegalStateException("injected failure at pid " + pid + ", step " + t);
                    }
                    if (failAt >= 0) sleep(); // time for checkpoints to be due, written and committed
                };
                run.run();
                String s = run.check();
                if (pid == 0) {
                    summary = s;
                    resumedAt.set(run.resumedAtStep());
                }
                double[] rows = run.rows();
                synchronized (grid) {
                    System.arraycopy(rows, 0, grid, run.firstRow() * n, rows.length);
                }
            }
        }

        private static void sleep() {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void assertSequential(String what) {
            double[] want = Heat.sequential(n, steps);
            int w = n + 2;
            for (int c = 0; c < n * n; c++) {
                int i = c / n, j = c % n;
                if (Double.doubleToRawLongBits(want[(i + 1) * w + j + 1]) != Double.doubleToRawLongBits(grid[c])) {
                    fail(what + ": cell (" + i + ", " + j + ") of n=" + n + ", steps=" + steps + " is " + grid[c]
                            + ", sequentially " + want[(i + 1) * w + j + 1]);
                }
            }
        }
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void gridEqualsTheSequentialJacobiBitForBit(int p) {
        for (int[] size : new int[][] {{1, 3}, {5, 7}, {37, 60}, {64, 0}}) {
            Job job = new Job(size[0], size[1], -1, -1);
            Lpf.root().exec(p, job);
            job.assertSequential("p=" + p);
            assertTrue(job.summary.endsWith("check ok"), job.summary);
            assertEquals(-1, job.resumedAt.get());
        }
        MemorySegment output = Arena.ofAuto().allocate(1024);
        Lpf.root().exec(p, new Heat(), Args.of(MemorySegment.NULL, output, new Object[] {"24", "30"}));
        String report = output.getString(0);
        assertTrue(report.startsWith("Heat 24x24, 30 Jacobi steps, " + p + " processes") && report.contains("check ok"), report);
    }

    @Test
    void theHeatSpreadsFromTheWallAndTheSpot() {
        double[] g = Heat.sequential(16, 40);
        int w = 18;
        assertTrue(g[w + 8] > g[8 * w + 1] && g[8 * w + 8] > 0.1, "hot near the top wall and the spot");
        assertEquals(Heat.HOT, g[1], "the top wall is held");
        assertEquals(0, g[17 * w + 8], "the bottom wall is held");
    }

    private void restartsFromACheckpoint(int p, String module) { restartsFromACheckpoint(p, 40, module); }

    private void restartsFromACheckpoint(int p, int n, String module) {
        Job job = new Job(n, 150, p - 1, 90);
        List<String> report = new ArrayList<>();
        Restarts.Outcome outcome = Restarts.exec(Lpf.root(), p, job, Args.NONE, 1, false, report::add);
        assertEquals(1, outcome.restarts(), report.toString());
        assertEquals(2, job.runs.get(), "one failed run, one restart");
        assertTrue(report.get(0).contains("injected failure"), report.get(0));
        int at = job.resumedAt.get();
        assertTrue(at > 0 && at <= 90, module + ": resumed at step " + at + ", want a checkpoint before the failure at 90");
        assertTrue(job.summary.contains("resumed at step " + at) && job.summary.endsWith("check ok"), job.summary);
        job.assertSequential(module + " p=" + p + " after a restart");
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {3, 5})
    void filesModuleResumesAfterAProcessThrows(int p) {
        Parameters.set("lpf.cr", "files");
        Parameters.set("lpf.cr.files.dir", dir.toString());
        Parameters.set("lpf.cr.files.every", "10ms");
        restartsFromACheckpoint(p, "files");
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {2, 4})
    void memoryModuleRollsBackAfterAProcessThrows(int p) {
        Parameters.set("lpf.cr", "memory");
        Parameters.set("lpf.cr.memory.every", "10ms");
        restartsFromACheckpoint(p, "memory");
    }

    @Test
    void processesWithoutRowsCheckpointAndResumeToo() {
        // n = 6 at p = 8: pids 0 and 4 own no row; their checkpoint parts are empty
        Parameters.set("lpf.cr", "memory");
        Parameters.set("lpf.cr.memory.every", "10ms");
        restartsFromACheckpoint(8, 6, "memory");
    }

    @Test
    void withoutCheckpointsAFailureIsFinal() {
        Job job = new Job(12, 20, 1, 5);
        assertThrows(FatalException.class, () -> Restarts.exec(Lpf.root(), 3, job, Args.NONE, 0, false, r -> {}));
    }

    @Test
    void badSizesAreRefusedWithTheirName() {
        FatalException e = assertThrows(FatalException.class,
                () -> Lpf.root().exec(2, new Heat(), Args.of(MemorySegment.NULL, MemorySegment.NULL, new Object[] {"0"})));
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("grid side 0"), e.getCause().getMessage());
    }
}
