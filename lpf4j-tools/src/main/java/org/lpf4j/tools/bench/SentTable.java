package org.lpf4j.tools.bench;

import org.lpf4j.spi.kit.WireCounts;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What process 0 sent to other JVMs per timed step of each cell of the side-by-side table, from
 * its engine's {@link WireCounts}: messages (the exchange's data messages + the sync's meta-data
 * messages), bytes (payload + meta-data: headers and the collectives' bytes) and the connections
 * it held open. Counts, unlike times, are the same on any machine, so a growth curve over p can
 * be read from them. Cells whose engine counts nothing (one JVM: the threads engine) show "-".
 */
public final class SentTable {
    private final Map<String, Map<Integer, double[]>> rows = new LinkedHashMap<>();

    /**
     * Records a measured cell.
     *
     * @param workload the row's name
     * @param p        the process count
     * @param perStep  what {@link Measurement#measure(org.lpf4j.Context, Workload, Settings, org.HdrHistogram.Histogram, double[])}
     *                 gave process 0 (copied)
     */
    public void add(String workload, int p, double[] perStep) {
        rows.computeIfAbsent(workload, k -> new LinkedHashMap<>()).put(p, perStep.clone());
    }

    /**
     * @param workload a row's name
     * @param p        a process count
     * @return the cell's counts per step (see {@link #add}), or null if not measured
     */
    public double[] cell(String workload, int p) {
        Map<Integer, double[]> row = rows.get(workload);
        return row == null ? null : row.get(p);
    }

    /** @return whether any measured cell has counts (the engine counts its messages) */
    public boolean counted() {
        for (Map<Integer, double[]> row : rows.values()) {
            for (double[] c : row.values()) if (c[WireCounts.DATA_MESSAGES] >= 0) return true;
        }
        return false;
    }

    /**
     * @param procs the columns
     * @return per workload three lines: messages (data+meta), bytes (payload+meta) and connections
     *         per step at process 0; or one line saying that the engine counts no messages
     */
    public String format(int[] procs) {
        String nl = System.lineSeparator();
        if (!counted()) return "sent per step: not counted (the engine runs in one JVM and sends no messages)" + nl;
        int nameWidth = "sent per step at process 0".length();
        for (String name : rows.keySet()) nameWidth = Math.max(nameWidth, name.length());
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-" + nameWidth + "s  %-11s", "sent per step at process 0", ""));
        for (int p : procs) b.append(String.format(Locale.ROOT, " %13s", "p=" + p));
        b.append(nl);
        for (Map.Entry<String, Map<Integer, double[]>> row : rows.entrySet()) {
            String[] what = {"messages", "bytes", "connections"};
            for (int line = 0; line < 3; line++) {
                b.append(String.format(Locale.ROOT, "%-" + nameWidth + "s  %-11s", line == 0 ? row.getKey() : "", what[line]));
                for (int p : procs) b.append(String.format(Locale.ROOT, " %13s", cellText(row.getValue().get(p), line)));
                b.append(nl);
            }
        }
        return b.toString();
    }

    /** @return e.g. {@code 1+3} messages, {@code 8+136} bytes, {@code 14} connections; "-" if not measured or counted */
    static String cellText(double[] c, int line) {
        if (c == null) return "-";
        return switch (line) {
            case 0 -> sum(c[WireCounts.DATA_MESSAGES], c[WireCounts.META_MESSAGES]);
            case 1 -> sum(c[WireCounts.PAYLOAD_BYTES], c[WireCounts.HEADER_BYTES] < 0 ? -1
                    : c[WireCounts.META_BYTES] < 0 ? -1 : c[WireCounts.HEADER_BYTES] + c[WireCounts.META_BYTES]);
            default -> c[WireCounts.COUNTERS] < 0 ? "-" : number(c[WireCounts.COUNTERS]);
        };
    }

    private static String sum(double a, double b) {
        if (a < 0) return "-";
        return number(a) + "+" + (b < 0 ? "?" : number(b));
    }

    /** Counts per step are whole numbers when every step sends alike; else two decimals. */
    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
