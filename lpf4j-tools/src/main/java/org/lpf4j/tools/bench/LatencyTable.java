package org.lpf4j.tools.bench;

import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The distribution of step durations per cell of the side-by-side table: median, 99th percentile
 * and maximum over every timed step of the cell, as process 0 saw them (a step is the row's
 * superstep or supersteps; a BSP program is as slow as its slowest superstep). Recorded with
 * HdrHistogram (two significant digits, 1 ns to 10 s) without allocation on the hot path.
 */
public final class LatencyTable {
    /** The largest value a histogram tracks; longer steps are recorded as this. */
    static final long HIGHEST_NANOS = 10_000_000_000L;

    /** median, p99 and max in nanoseconds of one cell. */
    public record Cell(double medianNanos, double p99Nanos, double maxNanos, long steps) {}

    private final Map<String, Map<Integer, Cell>> rows = new LinkedHashMap<>();

    /** @return a histogram for one cell, allocated before the cell's section starts */
    static Histogram newHistogram() {
        return new Histogram(HIGHEST_NANOS, 2);
    }

    /**
     * Records a measured cell.
     *
     * @param workload  the row's name
     * @param p         the process count
     * @param histogram the cell's step durations in nanoseconds
     */
    public void add(String workload, int p, Histogram histogram) {
        Cell cell = new Cell(histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(99),
                histogram.getMaxValue(), histogram.getTotalCount());
        rows.computeIfAbsent(workload, k -> new LinkedHashMap<>()).put(p, cell);
    }

    /**
     * @param workload a row's name
     * @param p        a process count
     * @return the cell, or null if it was not measured
     */
    public Cell cell(String workload, int p) {
        Map<Integer, Cell> row = rows.get(workload);
        return row == null ? null : row.get(p);
    }

    /** @return the rows' names, in measurement order */
    public List<String> workloads() { return List.copyOf(rows.keySet()); }

    /**
     * @param procs the columns
     * @return a header line, then one line per row: "median / p99 / max" in µs per cell, "-" where not measured
     */
    public String format(int[] procs) {
        int width = "step latency (µs)".length();
        for (String w : rows.keySet()) width = Math.max(width, w.length());
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-" + width + "s", "step latency (µs)"));
        for (int p : procs) b.append(String.format(Locale.ROOT, " %22s", "p=" + p + " med/p99/max"));
        b.append(System.lineSeparator());
        for (Map.Entry<String, Map<Integer, Cell>> row : rows.entrySet()) {
            b.append(String.format(Locale.ROOT, "%-" + width + "s", row.getKey()));
            for (int p : procs) {
                Cell c = row.getValue().get(p);
                String text = c == null ? "-" : BenchTable.number(c.medianNanos() / 1e3) + "/"
                        + BenchTable.number(c.p99Nanos() / 1e3) + "/" + BenchTable.number(c.maxNanos() / 1e3);
                b.append(String.format(Locale.ROOT, " %22s", text));
            }
            b.append(System.lineSeparator());
        }
        return b.toString();
    }
}
