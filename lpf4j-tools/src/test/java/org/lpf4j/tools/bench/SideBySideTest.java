package org.lpf4j.tools.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Context;
import org.lpf4j.Lpf;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SideBySideTest {
    private static final int[] PROCS = {1, 2, 3, 4, 5, 8};

    /** Counts each process's steps; a step is one sync. */
    private static final class Counting implements Workload {
        final AtomicLongArray steps = new AtomicLongArray(8);

        @Override public String name() { return "counting"; }

        @Override public Metric metric() { return Metric.MICROSECONDS; }

        @Override public boolean runsAt(int p) { return p != 4; }

        @Override public long registrations() { return 0; }

        @Override public long messages(int p) { return 0; }

        @Override public long amountPerStep(int p) { return 0; }

        @Override
        public Step prepare(Context ctx, Arena arena) {
            int pid = ctx.pid();
            for (int q = 0; q < steps.length(); q++) steps.set(q, 0);
            return () -> {
                steps.incrementAndGet(pid);
                ctx.sync();
            };
        }
    }

    @Test
    void everyProcessMakesTheSameNumberOfStepsAndSkippedCellsAreNaN() {
        Counting counting = new Counting();
        BenchTable table = SideBySide.run(Lpf.root(), List.of(counting), List.of(), PROCS,
                new Settings(3, 2_000_000L, 500_000L), cell -> { });
        double[] values = table.row("counting").values();
        for (int c = 0; c < PROCS.length; c++) {
            if (PROCS[c] == 4) assertTrue(Double.isNaN(values[c]));
            else assertTrue(values[c] > 0, "p=" + PROCS[c] + ": " + values[c]);
        }
        // The last cell (p=8) left its counts: equal on every pid.
        for (int q = 1; q < 8; q++) assertEquals(counting.steps.get(0), counting.steps.get(q), "pid " + q);
        assertTrue(counting.steps.get(0) >= 3, "warm-up and three repetitions ran");
    }

    @Test
    void standardWorkloadsAndRatioAtTwoProcesses() {
        BenchTable t = SideBySide.run(Lpf.root(), Workloads.standard(), Workloads.standardRatios(), new int[] {1, 2},
                new Settings(1, 1_000_000L, 200_000L), cell -> { });
        double put = t.row(Workloads.PUT_1MIB).values()[1];
        double copy = t.row(Workloads.COPY_1MIB).values()[0];
        assertTrue(Double.isNaN(t.row(Workloads.COPY_1MIB).values()[1]));
        assertEquals(put / copy, t.row("1 MiB put / copy bandwidth").values()[1], 1e-12);
        double atOnce = t.row(Workloads.COPY_1MIB_AT_ONCE).values()[1];
        assertTrue(Double.isNaN(t.row(Workloads.COPY_1MIB_AT_ONCE).values()[0]), "one process copies alone");
        assertEquals(put / atOnce, t.row("1 MiB put / copy at once bandwidth").values()[1], 1e-12);
        assertTrue(Double.isNaN(t.row("1 MiB put / copy at once bandwidth").values()[0]));
        double engines = t.row(Workloads.COPY_1MIB_ENGINES).values()[0];
        assertTrue(Double.isNaN(t.row(Workloads.COPY_1MIB_ENGINES).values()[1]), "the engines' copy runs at p = 1");
        assertEquals(put / engines, t.row("1 MiB put / engines' copy bandwidth").values()[1], 1e-12);
        assertEquals(t.row(Workloads.EXCHANGE_64KIB).values()[1] / t.row(Workloads.COPY_64KIB).values()[0],
                t.row("64 KiB exchange / copy bandwidth").values()[1], 1e-12);
        double roundTrip = t.row(Workloads.ROUND_TRIP).values()[1];
        assertTrue(Double.isNaN(t.row(Workloads.ROUND_TRIP).values()[0]), "the round trip needs two threads");
        assertTrue(roundTrip > 0 && roundTrip < 1e4, "a cache line there and back in " + roundTrip + " us");
        assertEquals(t.row("empty sync").values()[1] / roundTrip,
                t.row("empty sync / cache line there and back (time)").values()[1], 1e-12);
        assertTrue(t.format().contains("p=2"));
    }

    @Test
    void aRatioOfAMissingRowIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SideBySide.run(Lpf.root(),
                List.of(Workloads.emptySync()), List.of(new SideBySide.Ratio("r", "empty sync", "nope")),
                new int[] {1}, new Settings(1, 0, 1000), cell -> { }));
        assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
    }

    @Test
    void medianAndNumberFormatting() {
        assertEquals(2.0, Measurement.median(new double[] {3, 1, 2}));
        assertEquals(2.5, Measurement.median(new double[] {4, 1, 2, 3}));
        assertThrows(IllegalArgumentException.class, () -> Measurement.median(new double[0]));
        assertEquals("-", BenchTable.number(Double.NaN));
        assertEquals("0.021", BenchTable.number(0.0213));
        assertEquals("12.35", BenchTable.number(12.345));
        assertEquals("5.00e-03", BenchTable.number(0.005));
        assertEquals("1235", BenchTable.number(1234.6));
        assertThrows(IllegalArgumentException.class, () -> new Settings(0, 1, 1));
    }

    @Test
    void tableAlignsRowsUnderTheHeader() {
        BenchTable t = new BenchTable(new int[] {1, 2}, List.of(
                new BenchTable.Row("a", "µs", new double[] {1.5, Double.NaN}),
                new BenchTable.Row("longer name", "GB/s", new double[] {20, 30})));
        String[] lines = t.format().split("\\R");
        assertEquals(3, lines.length);
        assertEquals(lines[0].length(), lines[2].length(), t.format());
        assertTrue(lines[1].matches("a\\s+µs\\s+1\\.500\\s+-"), lines[1]);
        assertThrows(IllegalArgumentException.class, () -> t.row("missing"));
    }
}
