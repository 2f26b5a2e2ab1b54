package org.lpf4j.tools.plot;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.lpf4j.Machine;
import org.lpf4j.bench.programs.ProgramResult;
import org.lpf4j.tools.bench.BenchTable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The plots of {@code lpf probe --plot FILE} and {@code lpf bench --plot DIR}, drawn with XChart
 * headless and written as PNG and SVG (XChart's VectorGraphics2D encoder). Each chart is written
 * twice, {@code NAME.png} and {@code NAME.svg}.
 *
 * <ul>
 * <li>{@link #probe}: g (ns per byte, left axis) and l (µs, right axis) against the message size
 *     (log scale).</li>
 * <li>{@link #workloads}: per row of the side-by-side table (ratio rows excluded), its value
 *     (µs, GB/s or M msg/s) against p: {@code workload-<name>.png/.svg}.</li>
 * <li>{@link #programs}: per program, the speed-up over p = 1 of lpf4j and of its peer against
 *     p, with the ideal line: {@code program-<name>.png/.svg}; and one chart of every program's
 *     time ratio lpf4j / peer against p: {@code programs-ratio.png/.svg}.</li>
 * </ul>
 */
public final class Charts {
    private Charts() {}

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private static final int WIDTH = 720, HEIGHT = 440;

    /**
     * Draws g and l of a probe.
     *
     * @param m     the measurement
     * @param title the chart's title
     * @param file  the output: {@code x.png}, {@code x.svg} or {@code x}; both {@code x.png} and {@code x.svg} are written
     * @return the files written
     */
    public static List<Path> probe(Machine m, String title, Path file) {
        return write(probeChart(m, title), stripExtension(file));
    }

    /** @return the chart {@link #probe} writes */
    static XYChart probeChart(Machine m, String title) {
        long[] sizes = m.messageSizes();
        double[] x = new double[sizes.length], g = new double[sizes.length], l = new double[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            x[i] = Math.max(1, sizes[i]);
            g[i] = m.g(sizes[i]) * 1e9;
            l[i] = m.l(sizes[i]) * 1e6;
        }
        XYChart chart = chart(title, "message size (bytes)", "g (ns per byte)", List.of("g (ns/byte)", "l (µs)"));
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisLogarithmic(true); // g spans orders of magnitude from small to large messages
        XYSeries gs = chart.addSeries("g (ns/byte)", x, g);
        gs.setMarker(SeriesMarkers.CIRCLE);
        XYSeries ls = chart.addSeries("l (µs)", x, l);
        ls.setMarker(SeriesMarkers.DIAMOND);
        ls.setYAxisGroup(1);
        chart.setYAxisGroupTitle(1, "l (µs)");
        chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        // A log axis is labelled at powers of ten only: l often stays inside one decade, and its
        // axis had no label at all. Each axis spans whole decades, so both show at least two.
        spanDecades(chart, 0, g);
        spanDecades(chart, 1, l);
        return chart;
    }

    /** Sets y-axis group {@code group}'s range to the powers of ten around {@code values} (at least one decade). */
    static void spanDecades(XYChart chart, int group, double[] values) {
        double min = Double.POSITIVE_INFINITY, max = 0;
        for (double v : values) {
            if (v > 0 && Double.isFinite(v)) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        if (max == 0) return;
        double low = Math.floor(Math.log10(min)), high = Math.max(Math.ceil(Math.log10(max)), low + 1);
        chart.getStyler().setYAxisMin(group, Math.pow(10, low));
        chart.getStyler().setYAxisMax(group, Math.pow(10, high));
    }

    /**
     * Draws each measured row of a side-by-side table against p.
     *
     * @param table the table
     * @param dir   the output directory (created if missing)
     * @return the files written
     */
    public static List<Path> workloads(BenchTable table, Path dir) {
        List<Path> files = new ArrayList<>();
        workloadCharts(table).forEach((name, chart) -> files.addAll(write(chart, dir.resolve(name))));
        return files;
    }

    /** @return the charts {@link #workloads} writes, by file name without extension */
    static java.util.Map<String, XYChart> workloadCharts(BenchTable table) {
        java.util.Map<String, XYChart> charts = new java.util.LinkedHashMap<>();
        int[] procs = table.procs();
        for (BenchTable.Row row : table.rows()) {
            if (row.unit().equals("ratio")) continue;
            double[] v = row.values();
            List<Double> xs = new ArrayList<>(), ys = new ArrayList<>();
            for (int c = 0; c < procs.length; c++) {
                if (!Double.isNaN(v[c])) {
                    xs.add((double) procs[c]);
                    ys.add(v[c]);
                }
            }
            if (xs.isEmpty()) continue;
            XYChart chart = chart(row.name(), "processes p", row.unit(), List.of(row.name()));
            integerX(chart);
            XYSeries s = chart.addSeries(row.name(), xs, ys);
            s.setMarker(SeriesMarkers.CIRCLE);
            charts.put("workload-" + slug(row.name()), chart);
        }
        return charts;
    }

    /**
     * Draws each program's speed-up against p for lpf4j and its peer, and the ratio chart.
     *
     * @param results the programs' measurements
     * @param dir     the output directory (created if missing)
     * @return the files written
     */
    public static List<Path> programs(List<ProgramResult> results, Path dir) {
        List<Path> files = new ArrayList<>();
        programCharts(results).forEach((name, chart) -> files.addAll(write(chart, dir.resolve(name))));
        return files;
    }

    /** @return the charts {@link #programs} writes, by file name without extension */
    static java.util.Map<String, XYChart> programCharts(List<ProgramResult> results) {
        java.util.Map<String, XYChart> charts = new java.util.LinkedHashMap<>();
        XYChart ratios = chart("time lpf4j / time of the peer (below 1: lpf4j faster)", "processes / threads p",
                "ratio", results.stream().map(r -> r.name() + " vs " + r.peerName()).toList());
        for (ProgramResult r : results) {
            double[] x = new double[r.procs().length];
            for (int c = 0; c < x.length; c++) x[c] = r.procs()[c];
            XYChart chart = chart(r.name() + " (" + r.size() + "): speed-up over p = 1", "processes / threads p",
                    "speed-up", List.of("lpf4j", r.peerName(), "ideal"));
            integerX(chart);
            chart.addSeries("lpf4j", x, r.speedUp(r.lpf())).setMarker(SeriesMarkers.CIRCLE);
            chart.addSeries(r.peerName(), x, r.speedUp(r.peer())).setMarker(SeriesMarkers.DIAMOND);
            chart.addSeries("ideal", x, x).setMarker(SeriesMarkers.NONE);
            charts.put("program-" + slug(r.name()), chart);
            ratios.addSeries(r.name() + " vs " + r.peerName(), x, r.ratio()).setMarker(SeriesMarkers.CIRCLE);
        }
        integerX(ratios);
        if (!results.isEmpty()) charts.put("programs-ratio", ratios);
        return charts;
    }

    /**
     * p is a count: an integer decimal pattern makes XChart choose whole-number ticks (with the
     * default it put ticks at 1.5, 2.5, 3.5 processes between the measured p = 1, 2, 4).
     */
    static void integerX(XYChart chart) {
        chart.getStyler().setXAxisDecimalPattern("#");
    }

    /**
     * @param series the names of the series the chart will get, for the legend's layout
     *               ({@link #extraLegendLines}): side by side below the plot if they fit, else one per line
     */
    static XYChart chart(String title, String xTitle, String yTitle, List<String> series) {
        int extra = extraLegendLines(series);
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT + extra).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(extra == 0 ? Styler.LegendLayout.Horizontal : Styler.LegendLayout.Vertical);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        return chart;
    }

    /** Legend entries' sample line and gaps, in pixels, beside the text (XChart's defaults, rounded up). */
    private static final int LEGEND_ENTRY_EXTRA = 48, LEGEND_MARGIN = 40;

    /**
     * @param series the legend's entries
     * @return the pixels the legend needs beyond one line: 0 when the entries fit side by side;
     *         else the height of the further lines, one entry per line. XChart centres a
     *         horizontal legend and does not wrap it, so one wider than the chart was cut at both ends.
     */
    static int extraLegendLines(List<String> series) {
        java.awt.Font font = new XYChartBuilder().build().getStyler().getLegendFont();
        java.awt.image.BufferedImage scratch = new java.awt.image.BufferedImage(1, 1, java.awt.image.BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = scratch.createGraphics();
        try {
            java.awt.FontMetrics metrics = g.getFontMetrics(font);
            int width = 0;
            for (String name : series) width += metrics.stringWidth(name) + LEGEND_ENTRY_EXTRA;
            return width + LEGEND_MARGIN <= WIDTH ? 0 : (series.size() - 1) * (metrics.getHeight() + LEGEND_LINE_GAP);
        } finally {
            g.dispose();
        }
    }

    private static final int LEGEND_LINE_GAP = 10;

    /** Writes {@code base.png} and {@code base.svg}; returns both paths. */
    private static List<Path> write(XYChart chart, Path base) {
        try {
            Path parent = base.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            BitmapEncoder.saveBitmap(chart, base + ".png", BitmapEncoder.BitmapFormat.PNG);
            VectorGraphicsEncoder.saveVectorGraphic(chart, base + ".svg", VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the chart " + base + ".png/.svg: " + e.getMessage(), e);
        }
        return List.of(Path.of(base + ".png"), Path.of(base + ".svg"));
    }

    /** @return {@code file} without a trailing {@code .png} or {@code .svg} */
    static Path stripExtension(Path file) {
        String name = file.toString();
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.endsWith(".png") || lower.endsWith(".svg") ? Path.of(name.substring(0, name.length() - 4)) : file;
    }

    /** @return a file-name form of a row or program name: lower case, runs of other characters as '-' */
    public static String slug(String name) {
        String s = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
        s = s.replaceAll("^-+|-+$", "");
        return s.isEmpty() ? "chart" : s;
    }
}
