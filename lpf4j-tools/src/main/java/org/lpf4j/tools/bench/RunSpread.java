package org.lpf4j.tools.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The spread of {@code lpf bench --runs N}: per cell, the largest of the N runs' medians divided
 * by the smallest (1.00 = perfectly repeatable; a cell measured in fewer than all runs is "-").
 */
public final class RunSpread {
    private RunSpread() {}

    /**
     * @param runs the tables of the runs, all with the same rows and columns, at least one
     * @return a table of the same shape whose values are max/min of the runs' values
     */
    public static BenchTable of(List<BenchTable> runs) {
        BenchTable first = runs.get(0);
        int columns = first.procs().length;
        List<BenchTable.Row> rows = new ArrayList<>();
        for (BenchTable.Row row : first.rows()) {
            double[] max = new double[columns], min = new double[columns], spread = new double[columns];
            java.util.Arrays.fill(max, Double.NEGATIVE_INFINITY);
            java.util.Arrays.fill(min, Double.POSITIVE_INFINITY);
            boolean[] missing = new boolean[columns];
            for (BenchTable t : runs) {
                double[] v = t.row(row.name()).values();
                for (int c = 0; c < columns; c++) {
                    if (Double.isNaN(v[c])) missing[c] = true;
                    max[c] = Math.max(max[c], v[c]);
                    min[c] = Math.min(min[c], v[c]);
                }
            }
            for (int c = 0; c < columns; c++) spread[c] = missing[c] ? Double.NaN : max[c] / min[c];
            rows.add(new BenchTable.Row(row.name(), "max/min", spread));
        }
        return new BenchTable(first.procs(), rows);
    }
}
