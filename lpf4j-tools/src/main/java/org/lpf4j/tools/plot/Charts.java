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
        long[] sizes = m.messageSizes();
        double[] x = new double[sizes.length], g = new double[sizes.length], l = new double[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            x[i] = Math.max(1, sizes[i]);
            g[i] = m.g(sizes[i]) * 1e9;
            l[i] = m.l(sizes[i]) * 1e6;
        }
        XYChart chart = chart(title, "message size (bytes)", "g (ns per byte)");
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisLogarithmic(true); // g spans orders of magnitude from small to large messages
        XYSeries gs = chart.addSeries("g (ns/byte)", x, g);
        gs.setMarker(SeriesMarkers.CIRCLE);
        XYSeries ls = chart.addSeries("l (µs)", x, l);
        ls.setMarker(SeriesMarkers.DIAMOND);
        ls.setYAxisGroup(1);
        chart.setYAxisGroupTitle(1, "l (µs)");
        chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        return write(chart, stripExtension(file));
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
            XYChart chart = chart(row.name(), "processes p", row.unit());
            XYSeries s = chart.addSeries(row.name(), xs, ys);
            s.setMarker(SeriesMarkers.CIRCLE);
            files.addAll(write(chart, dir.resolve("workload-" + slug(row.name()))));
        }
        return files;
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
        XYChart ratios = chart("time lpf4j / time of the peer (below 1: lpf4j faster)", "processes / threads p",
                "ratio");
        for (ProgramResult r : results) {
            double[] x = new double[r.procs().length];
            for (int c = 0; c < x.length; c++) x[c] = r.procs()[c];
            XYChart chart = chart(r.name() + " (" + r.size() + "): speed-up over p = 1", "processes / threads p",
                    "speed-up");
            chart.addSeries("lpf4j", x, r.speedUp(r.lpf())).setMarker(SeriesMarkers.CIRCLE);
            chart.addSeries(r.peerName(), x, r.speedUp(r.peer())).setMarker(SeriesMarkers.DIAMOND);
            chart.addSeries("ideal", x, x).setMarker(SeriesMarkers.NONE);
            files.addAll(write(chart, dir.resolve("program-" + slug(r.name()))));
            ratios.addSeries(r.name() + " vs " + r.peerName(), x, r.ratio()).setMarker(SeriesMarkers.CIRCLE);
        }
        if (!results.isEmpty()) files.addAll(write(ratios, dir.resolve("programs-ratio")));
        return files;
    }

    private static XYChart chart(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        return chart;
    }

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
