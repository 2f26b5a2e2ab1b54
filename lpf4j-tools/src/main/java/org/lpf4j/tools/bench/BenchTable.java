package org.lpf4j.tools.bench;

import java.util.List;
import java.util.Locale;

/**
 * The result of {@link SideBySide#run}: one value per row and process count ({@link Double#NaN}
 * where not measured), printable as an aligned text table.
 *
 * @param procs the process count of each column
 * @param rows  the rows, in order
 */
public record BenchTable(int[] procs, List<Row> rows) {

    /**
     * @param name   what was measured
     * @param unit   the unit of the values
     * @param values one per column, {@link Double#NaN} where not measured
     */
    public record Row(String name, String unit, double[] values) {
        /** Copies the values. */
        public Row {
            values = values.clone();
        }

        @Override
        public double[] values() { return values.clone(); }
    }

    /** Freezes the rows. */
    public BenchTable {
        procs = procs.clone();
        rows = List.copyOf(rows);
    }

    @Override
    public int[] procs() { return procs.clone(); }

    /**
     * @param name a row's name
     * @return the row
     * @throws IllegalArgumentException if there is none of that name
     */
    public Row row(String name) {
        for (Row r : rows) if (r.name().equals(name)) return r;
        throw new IllegalArgumentException("BenchTable: no row '" + name + "'");
    }

    /** @return the table as text: a header line, then one line per row; "-" marks cells not measured */
    public String format() {
        int nameWidth = "workload".length();
        for (Row r : rows) nameWidth = Math.max(nameWidth, r.name().length());
        int unitWidth = "unit".length();
        for (Row r : rows) unitWidth = Math.max(unitWidth, r.unit().length());
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-" + nameWidth + "s  %-" + unitWidth + "s", "workload", "unit"));
        for (int p : procs) b.append(String.format(Locale.ROOT, " %10s", "p=" + p));
        b.append(System.lineSeparator());
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "%-" + nameWidth + "s  %-" + unitWidth + "s", r.name(), r.unit()));
            for (double v : r.values()) b.append(String.format(Locale.ROOT, " %10s", number(v)));
            b.append(System.lineSeparator());
        }
        return b.toString();
    }

    /** @return {@code v} with about four significant digits, or "-" for NaN */
    static String number(double v) {
        if (Double.isNaN(v)) return "-";
        double a = Math.abs(v);
        String pattern = a >= 1000 ? "%.0f" : a >= 100 ? "%.1f" : a >= 10 ? "%.2f" : a >= 0.01 ? "%.3f" : "%.2e";
        return String.format(Locale.ROOT, pattern, v);
    }
}
