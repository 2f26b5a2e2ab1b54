package org.lpf4j.tools.bench;

import org.lpf4j.Context;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The side-by-side benchmark: measures every {@link Workload} at every process count of the
 * table, each (workload, p) cell in its own {@code exec} of p processes, and derives ratio rows,
 * so that one run prints comparable numbers.
 */
public final class SideBySide {
    private SideBySide() {}

    /**
     * A row computed from two others: {@code numerator[p] / denominator[p]}, where a denominator
     * measured only at p = 1 (like the copy bandwidth) is used for every p; otherwise a cell
     * whose denominator was not measured is not measured either.
     *
     * @param name        the row's name
     * @param numerator   name of the numerator row
     * @param denominator name of the denominator row
     */
    public record Ratio(String name, String numerator, String denominator) {}

    /**
     * Runs the table.
     *
     * @param root      the context whose {@code exec} starts the sections; its machine must
     *                  allow the largest of {@code procs}
     * @param workloads the measured rows, in order
     * @param ratios    the derived rows, appended in order
     * @param procs     the process counts (columns)
     * @param settings  how long to measure each cell
     * @param progress  told the name and p of each cell before it starts (e.g. for a progress line)
     * @return the table; cells a row does not run at, or whose section ran with fewer processes
     *         than asked, are {@link Double#NaN}
     * @throws org.lpf4j.FatalException if a section fails
     */
    public static BenchTable run(Context root, List<Workload> workloads, List<Ratio> ratios, int[] procs,
                                 Settings settings, Consumer<String> progress) {
        return run(root, workloads, ratios, procs, settings, progress, null);
    }

    /**
     * {@link #run(Context, List, List, int[], Settings, Consumer)}, also recording process 0's
     * duration of every timed step of every cell into {@code latencies} (if not null).
     *
     * @param root      the context whose {@code exec} starts the sections
     * @param workloads the measured rows, in order
     * @param ratios    the derived rows, appended in order
     * @param procs     the process counts (columns)
     * @param settings  how long to measure each cell
     * @param progress  told the name and p of each cell before it starts
     * @param latencies receives each measured cell's step durations, or null
     * @return the table
     */
    public static BenchTable run(Context root, List<Workload> workloads, List<Ratio> ratios, int[] procs,
                                 Settings settings, Consumer<String> progress, LatencyTable latencies) {
        return run(root, workloads, ratios, procs, settings, progress, latencies, null);
    }

    /**
     * {@link #run(Context, List, List, int[], Settings, Consumer, LatencyTable)}, also recording
     * what process 0 sent per timed step of every cell into {@code sent} (if not null).
     *
     * @param root      the context whose {@code exec} starts the sections
     * @param workloads the measured rows, in order
     * @param ratios    the derived rows, appended in order
     * @param procs     the process counts (columns)
     * @param settings  how long to measure each cell
     * @param progress  told the name and p of each cell before it starts
     * @param latencies receives each measured cell's step durations, or null
     * @param sent      receives each measured cell's counts per step at process 0, or null
     * @return the table
     */
    public static BenchTable run(Context root, List<Workload> workloads, List<Ratio> ratios, int[] procs,
                                 Settings settings, Consumer<String> progress, LatencyTable latencies, SentTable sent) {
        if (settings.warmupNanos() >= JIT_WARM_UP_THRESHOLD_NANOS) {
            // One quick, discarded pass over every cell first: on 2 cores the JIT compiler holds
            // a core for long stretches early in a JVM's life, and a cell measured meanwhile runs
            // with its processes sharing the other core (seen: 8-byte put + sync at p = 2 about 3x
            // slower when the p = 2 column came first; docs/performance.md).
            progress.accept("JIT warm-up pass");
            measureAll(root, workloads, procs, Settings.quick(1), name -> { }, null, null);
        }
        List<BenchTable.Row> rows = measureAll(root, workloads, procs, settings, progress, latencies, sent);
        for (Ratio r : ratios) rows.add(ratioRow(r, rows, procs));
        return new BenchTable(procs, rows);
    }

    /** Settings with at least this much warm-up per cell also get the JIT warm-up pass. */
    private static final long JIT_WARM_UP_THRESHOLD_NANOS = 100_000_000L;

    private static List<BenchTable.Row> measureAll(Context root, List<Workload> workloads, int[] procs,
                                                   Settings settings, Consumer<String> progress,
                                                   LatencyTable latencies, SentTable sent) {
        List<BenchTable.Row> rows = new ArrayList<>();
        for (Workload w : workloads) {
            double[] values = new double[procs.length];
            Arrays.fill(values, Double.NaN);
            for (int c = 0; c < procs.length; c++) {
                int p = procs[c];
                if (!w.runsAt(p)) continue;
                progress.accept(w.name() + " at p=" + p);
                double[][] samples = new double[1][];
                int[] ran = new int[1];
                org.HdrHistogram.Histogram histogram = latencies == null ? null : LatencyTable.newHistogram();
                double[] perStep = sent == null ? null : new double[org.lpf4j.spi.kit.WireCounts.COUNTERS + 1];
                w.root(root).exec(p, ctx -> {
                    double[] mine = Measurement.measure(ctx, w, settings, ctx.pid() == 0 ? histogram : null,
                            ctx.pid() == 0 ? perStep : null);
                    if (ctx.pid() == 0) {
                        samples[0] = mine;
                        ran[0] = ctx.nprocs();
                    }
                });
                if (ran[0] == p) {
                    values[c] = w.metric().value(Measurement.median(samples[0]), w.amountPerStep(p));
                    if (latencies != null) latencies.add(w.name(), p, histogram);
                    if (sent != null) sent.add(w.name(), p, perStep);
                }
            }
            rows.add(new BenchTable.Row(w.name(), w.metric().unit(), values));
        }
        return rows;
    }

    private static BenchTable.Row ratioRow(Ratio ratio, List<BenchTable.Row> rows, int[] procs) {
        double[] num = find(rows, ratio.numerator()).values();
        double[] den = find(rows, ratio.denominator()).values();
        int one = -1;
        boolean onlyAtOne = true;
        for (int c = 0; c < procs.length; c++) {
            if (procs[c] == 1) one = c;
            else if (!Double.isNaN(den[c])) onlyAtOne = false;
        }
        if (!onlyAtOne) one = -1;
        double[] values = new double[procs.length];
        for (int c = 0; c < procs.length; c++) {
            double d = !Double.isNaN(den[c]) ? den[c] : one >= 0 ? den[one] : Double.NaN;
            values[c] = num[c] / d;
        }
        return new BenchTable.Row(ratio.name(), "ratio", values);
    }

    private static BenchTable.Row find(List<BenchTable.Row> rows, String name) {
        for (BenchTable.Row r : rows) if (r.name().equals(name)) return r;
        throw new IllegalArgumentException("SideBySide: ratio names the row '" + name + "', which is not measured; rows: "
                + rows.stream().map(BenchTable.Row::name).toList());
    }
}
