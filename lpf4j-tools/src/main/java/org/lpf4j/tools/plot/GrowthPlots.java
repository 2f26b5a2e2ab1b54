package org.lpf4j.tools.plot;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntToDoubleFunction;

/**
 * The growth curves of docs/performance.md ("Growth with p"): what a process sends per superstep
 * and the job's start-up time against p, drawn from the lines that docs/scripts/ScaleCounts.java
 * ({@code counts workload=W p=P messages=M bytes=B connections=C}) and
 * docs/scripts/StartupTime.java ({@code startup p=P from_last_main_ms=T ...}, optionally after
 * {@code series=NAME}) print. {@code java ... org.lpf4j.tools.plot.GrowthPlots OUTDIR FILE...}
 * writes {@code OUTDIR/growth-messages.png}, {@code growth-bytes.png}, {@code growth-connections.png}
 * (each but the bytes with a line in O(log p) to read it against), {@code startup.png} (the median per p and series) and
 * {@code growth-time.png}, for whichever of them the files have data. p is on a log2 axis. Other lines are ignored.
 *
 * <p>{@code growth-time.png} is the time per superstep against p of each engine, from the lines that
 * docs/scripts/emulated-vs-mpi.sh prints ({@code ENGINE empty_sync_us P VALUE}, likewise {@code ring8_sync_us} and
 * {@code dense8_sync_us}; the median per engine, workload and p), beside the bound a line
 * {@code emulated hosts=H one_way_us=D} gives: a sync's information crosses between hosts in at least
 * ⌈log2 H⌉ rounds, each at least the wire's one-way delay (none drawn when that delay is 0).
 */
public final class GrowthPlots {
    private GrowthPlots() {}

    private static final String[] WORKLOADS = {"empty", "ring", "dense"};
    /** The time lines' names, by workload. */
    private static final Map<String, String> TIMES = Map.of("empty_sync_us", "empty", "ring8_sync_us", "ring", "dense8_sync_us", "dense");
    private static final Map<String, String> LABELS = Map.of("empty", "empty sync", "ring", "ring (8 B to 1 peer)",
            "dense", "dense (8 B to p - 1 peers)");

    /**
     * @param args the output directory, then the files of measured lines
     * @throws IOException if a file cannot be read or a chart written
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: GrowthPlots OUTDIR FILE...: draws the growth curves of the counts and start-up lines in FILE...");
            System.exit(2);
        }
        List<String> lines = new ArrayList<>();
        for (int i = 1; i < args.length; i++) lines.addAll(Files.readAllLines(Path.of(args[i])));
        for (Path p : write(lines, Path.of(args[0]))) System.out.println(p);
    }

    /**
     * @param lines the measured lines
     * @param dir   the output directory (created if missing)
     * @return the PNG files written
     */
    public static List<Path> write(List<String> lines, Path dir) throws IOException {
        // workload -> what -> p -> value; series -> p -> start-up times
        Map<String, Map<String, TreeMap<Integer, Double>>> counts = new HashMap<>();
        Map<String, TreeMap<Integer, List<Double>>> startup = new TreeMap<>();
        Map<String, TreeMap<Integer, List<Double>>> times = new TreeMap<>(); // "engine: workload" -> p -> µs
        double bound = Double.NaN;
        String where = "";
        for (String line : lines) {
            Map<String, String> f = fields(line);
            String[] t = line.trim().split("\\s+");
            if (t.length == 4 && TIMES.containsKey(t[1]) && t[2].matches("\\d+") && t[3].matches("[0-9.]+")) {
                times.computeIfAbsent(t[0] + ": " + LABELS.get(TIMES.get(t[1])), k -> new TreeMap<>())
                        .computeIfAbsent(Integer.parseInt(t[2]), k -> new ArrayList<>()).add(Double.parseDouble(t[3]));
                continue;
            }
            if (line.startsWith("emulated ") && f.containsKey("hosts") && f.containsKey("one_way_us")) {
                double d = log2(Integer.parseInt(f.get("hosts"))) * Double.parseDouble(f.get("one_way_us"));
                bound = d > 0 ? d : Double.NaN;
                where = " on " + f.get("hosts") + " emulated hosts";
                continue;
            }
            if (line.contains("counts ") && f.containsKey("workload") && f.containsKey("p")) {
                int p = Integer.parseInt(f.get("p"));
                for (String what : List.of("messages", "bytes", "connections")) {
                    if (f.containsKey(what)) counts.computeIfAbsent(f.get("workload"), k -> new HashMap<>())
                            .computeIfAbsent(what, k -> new TreeMap<>()).put(p, Double.parseDouble(f.get(what)));
                }
            } else if (line.contains("startup ") && f.containsKey("p") && f.containsKey("from_last_main_ms")) {
                startup.computeIfAbsent(f.getOrDefault("series", "net"), k -> new TreeMap<>())
                        .computeIfAbsent(Integer.parseInt(f.get("p")), k -> new ArrayList<>()).add(Double.parseDouble(f.get("from_last_main_ms")));
            }
        }
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        if (!counts.isEmpty()) {
            written.add(countChart(counts, "messages", "messages per process per superstep (net engine)", "messages",
                    "2⌈log2 p⌉ (target: empty sync)", p -> 2 * log2(p), dir.resolve("growth-messages.png")));
            written.add(countChart(counts, "bytes", "bytes per process per superstep (net engine)", "bytes", null, null,
                    dir.resolve("growth-bytes.png")));
            written.add(countChart(counts, "connections", "connections per process after the superstep (net engine)", "connections",
                    "2⌈log2 p⌉ (the sync's partners, both ways)", p -> 2 * log2(p), dir.resolve("growth-connections.png")));
        }
        if (!startup.isEmpty()) {
            XYChart chart = Charts.chart("start-up: last JVM's main to the first superstep's end at pid 0 (median)", "processes p",
                    "ms", new ArrayList<>(startup.keySet()));
            startup.forEach((series, byP) -> {
                double[] x = new double[byP.size()], y = new double[byP.size()];
                int i = 0;
                for (Map.Entry<Integer, List<Double>> e : byP.entrySet()) {
                    x[i] = log2exact(e.getKey());
                    y[i++] = median(e.getValue());
                }
                chart.addSeries(series, x, y).setMarker(SeriesMarkers.CIRCLE);
            });
            log2Axis(chart);
            written.add(png(chart, dir.resolve("startup.png")));
        }
        if (!times.isEmpty()) written.add(timeChart(times, bound, where, dir.resolve("growth-time.png")));
        return written;
    }

    private static Path timeChart(Map<String, TreeMap<Integer, List<Double>>> times, double bound, String where, Path file)
            throws IOException {
        String boundName = "⌈log2 hosts⌉ × one-way delay (a sync's bound)";
        List<String> names = new ArrayList<>(times.keySet());
        if (!Double.isNaN(bound)) names.add(boundName);
        XYChart chart = Charts.chart("time per superstep" + where + " (median)", "processes p", "µs", names);
        List<Double> all = new ArrayList<>();
        TreeMap<Integer, List<Double>> any = null;
        for (Map.Entry<String, TreeMap<Integer, List<Double>>> series : times.entrySet()) {
            TreeMap<Integer, List<Double>> byP = series.getValue();
            any = byP;
            double[] x = byP.keySet().stream().mapToDouble(GrowthPlots::log2exact).toArray();
            double[] y = byP.values().stream().mapToDouble(GrowthPlots::median).toArray();
            for (double v : y) all.add(v);
            chart.addSeries(series.getKey(), x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        if (!Double.isNaN(bound)) {
            double[] x = any.keySet().stream().mapToDouble(GrowthPlots::log2exact).toArray();
            double[] y = new double[x.length];
            Arrays.fill(y, bound);
            all.add(bound);
            chart.addSeries(boundName, x, y).setMarker(SeriesMarkers.NONE);
        }
        chart.getStyler().setYAxisLogarithmic(true);
        Charts.spanDecades(chart, 0, all.stream().mapToDouble(Double::doubleValue).toArray());
        log2Axis(chart);
        return png(chart, file);
    }

    private static Path countChart(Map<String, Map<String, TreeMap<Integer, Double>>> counts, String what, String title, String unit,
                                   String boundName, IntToDoubleFunction bound, Path file) throws IOException {
        List<String> names = new ArrayList<>();
        for (String w : WORKLOADS) if (counts.containsKey(w)) names.add(LABELS.get(w));
        if (bound != null) names.add(boundName);
        XYChart chart = Charts.chart(title, "processes p", unit, names);
        TreeMap<Integer, Double> any = null;
        List<Double> all = new ArrayList<>();
        for (String w : WORKLOADS) {
            TreeMap<Integer, Double> byP = counts.getOrDefault(w, Map.of()).get(what);
            if (byP == null || byP.isEmpty()) continue;
            any = byP;
            double[] x = byP.keySet().stream().mapToDouble(GrowthPlots::log2exact).toArray();
            double[] y = byP.values().stream().mapToDouble(v -> Math.max(v, 0.5)).toArray(); // 0 has no place on a log axis
            all.addAll(byP.values());
            chart.addSeries(LABELS.get(w), x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        if (bound != null && any != null) {
            double[] x = any.keySet().stream().mapToDouble(GrowthPlots::log2exact).toArray();
            double[] y = any.keySet().stream().mapToDouble(p -> bound.applyAsDouble(p)).toArray();
            chart.addSeries(boundName, x, y).setMarker(SeriesMarkers.NONE);
        }
        chart.getStyler().setYAxisLogarithmic(true);
        Charts.spanDecades(chart, 0, all.stream().mapToDouble(v -> Math.max(v, 0.5)).toArray());
        log2Axis(chart);
        return png(chart, file);
    }

    /** x holds log2 p: ticks labelled with p at whole powers of two only. */
    private static void log2Axis(XYChart chart) {
        chart.setCustomXAxisTickLabelsFormatter(x -> Math.abs(x - Math.rint(x)) < 1e-9 ? Long.toString(1L << (long) Math.rint(x)) : "");
    }

    private static Path png(XYChart chart, Path file) throws IOException {
        String base = file.toString();
        BitmapEncoder.saveBitmap(chart, base.substring(0, base.length() - 4), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }

    /** @return ⌈log2 p⌉ */
    static int log2(int p) { return 32 - Integer.numberOfLeadingZeros(Math.max(1, p) - 1); }

    private static double log2exact(int p) { return Math.log(p) / Math.log(2); }

    private static double median(List<Double> v) {
        double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** @return the line's {@code key=value} tokens */
    private static Map<String, String> fields(String line) {
        Map<String, String> f = new HashMap<>();
        Arrays.stream(line.trim().split("\\s+")).filter(t -> t.indexOf('=') > 0)
                .forEach(t -> f.put(t.substring(0, t.indexOf('=')), t.substring(t.indexOf('=') + 1)));
        return f;
    }
}
