package org.lpf4j.tools;

import org.lpf4j.Machine;
import org.lpf4j.spi.kit.WireCounts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The merged superstep records of one {@code lpf run --profile}: per process and superstep the
 * compute time, the wait in the sync, and the messages and bytes out and in; per superstep the
 * h-relation, the time g and l predict and the time measured.
 *
 * <p><b>Definitions.</b> Superstep s of a process is the stretch from the end of its sync s − 1
 * (or the section's start) to the end of its sync s; the last superstep is the compute after the
 * last sync, which has no sync (wait 0, and no l in its prediction). <em>Compute</em> is the time
 * before the sync is called, <em>wait</em> the time inside it. A process's <em>out</em> is what
 * leaves its memory for another process: its own puts and the gets other processes make from
 * it; its <em>in</em> is what arrives in its memory from another process: its own gets and the
 * puts others make to it. A process's puts and gets to itself (local copies) are not counted.
 * Messages are requests (puts and gets); bytes are their sizes. A process's h is max(bytes out,
 * bytes in); a superstep's h is the largest over the processes; w is the largest compute.
 * <em>measured</em> is the largest compute + wait; <em>predicted</em> is w + l + g·h with g and l
 * of {@link Machine} at the superstep's mean message size (bytes over messages), or w for the last
 * superstep. The <em>imbalance</em> of a superstep is max / mean compute over the processes.
 *
 * <p><em>Sent</em> ({@link #sent}) is what the engine itself sent to other JVMs in the sync: the
 * messages and bytes of the exchange and of the sync's collectives, and the connections open
 * ({@link WireCounts}); not counted on an engine in one JVM.
 *
 * <p>Immutable after {@link #read}. Memory: thirteen longs per process and superstep.
 */
final class ProfileRecords {
    final int p;
    final int steps;
    /** [pid][superstep], nanoseconds / counts. */
    final long[][] compute, wait, messagesOut, bytesOut, messagesIn, bytesIn;
    /**
     * [pid][superstep][counter]: what the process sent to other JVMs in the superstep's sync,
     * {@link SuperstepLog#WIDTH} counters ({@link WireCounts}'s, then the connections open after
     * it); -1 where not counted (an engine in one JVM, the part after the last sync, or a meta
     * counter the engine cannot see).
     */
    final long[][][] sent;
    /** Whether the superstep ends with a sync (every one but the last). */
    final boolean[] synced;
    /** Pids whose records did not arrive (their rows are zero). */
    final List<Integer> missing;
    /** g and l of the section (pid 0's probe), or null. */
    final Machine machine;
    /** Per superstep: h in bytes, w, measured and predicted nanoseconds (predicted −1 without a machine), slowest pid. */
    final long[] h, w, measured, predicted;
    final double[] meanCompute;
    final int[] slowest;

    private ProfileRecords(int p, int steps, List<Integer> missing, Machine machine) {
        this.p = p;
        this.steps = steps;
        compute = new long[p][steps];
        wait = new long[p][steps];
        messagesOut = new long[p][steps];
        bytesOut = new long[p][steps];
        messagesIn = new long[p][steps];
        bytesIn = new long[p][steps];
        synced = new boolean[steps];
        sent = new long[p][steps][SuperstepLog.WIDTH];
        for (long[][] q : sent) for (long[] c : q) Arrays.fill(c, -1);
        this.missing = missing;
        this.machine = machine;
        h = new long[steps];
        w = new long[steps];
        measured = new long[steps];
        predicted = new long[steps];
        meanCompute = new double[steps];
        slowest = new int[steps];
    }

    /**
     * Reads the records of pids 0 to p − 1 written by {@link SuperstepLog#write}, waiting up to
     * {@code waitMillis} for files not there yet.
     *
     * @throws UncheckedIOException if a file that exists cannot be read
     */
    static ProfileRecords read(Profile profile, int p, long waitMillis) {
        List<List<String>> lines = new ArrayList<>();
        List<Integer> missing = new ArrayList<>();
        long deadline = System.nanoTime() + waitMillis * 1_000_000;
        for (int q = 0; q < p; q++) {
            Path file = profile.recordFile(q);
            while (!Files.exists(file) && System.nanoTime() < deadline) sleep();
            if (!Files.exists(file)) {
                missing.add(q);
                lines.add(List.of());
                continue;
            }
            try {
                lines.add(Files.readAllLines(file));
            } catch (IOException e) {
                throw new UncheckedIOException("lpf run --profile: cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        int steps = 0;
        for (List<String> file : lines) {
            for (String line : file) if (line.startsWith("step,")) steps = Math.max(steps, Integer.parseInt(line.split(",")[1]) + 1);
        }
        // every process writes the same machine lines (the probe's result is identical on all); take the first
        List<String> machineLines = lines.stream().map(file -> file.stream().filter(l -> l.startsWith("machine,")).toList())
                .filter(m -> !m.isEmpty()).findFirst().orElse(List.of());
        ProfileRecords r = new ProfileRecords(p, steps, List.copyOf(missing), machine(p, machineLines));
        for (int q = 0; q < p; q++) {
            int qSteps = 0;
            for (String line : lines.get(q)) {
                String[] f = line.split(",");
                switch (f[0]) {
                    case "step" -> {
                        int s = Integer.parseInt(f[1]);
                        r.compute[q][s] = Long.parseLong(f[2]);
                        r.wait[q][s] = Long.parseLong(f[3]);
                        qSteps = Math.max(qSteps, s + 1);
                    }
                    case "sent" -> {
                        int s = Integer.parseInt(f[1]);
                        if (s < steps) for (int c = 0; c < SuperstepLog.WIDTH; c++) r.sent[q][s][c] = Long.parseLong(f[2 + c]);
                    }
                    case "pair" -> r.addPair(q, Integer.parseInt(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3]),
                            Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]));
                    default -> { }
                }
            }
            // the last superstep of every process has no sync; the others end with one
            for (int s = 0; s + 1 < qSteps; s++) r.synced[s] = true;
        }
        r.derive();
        return r;
    }

    private static Machine machine(int p, List<String> lines) {
        if (lines.isEmpty()) return null;
        long[] sizes = new long[lines.size()];
        double[] g = new double[lines.size()], l = new double[lines.size()];
        for (int i = 0; i < lines.size(); i++) {
            String[] f = lines.get(i).split(",");
            sizes[i] = Long.parseLong(f[1]);
            g[i] = Double.parseDouble(f[2]);
            l[i] = Double.parseDouble(f[3]);
        }
        return new Machine(p, 0, sizes, g, l);
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProgramFailure("lpf run --profile: interrupted while waiting for the records", e);
        }
    }

    private void addPair(int q, int s, int peer, long putMsgs, long putBytes, long getMsgs, long getBytes) {
        if (peer == q || peer < 0 || peer >= p || s >= steps) return; // local copies are not counted
        messagesOut[q][s] += putMsgs;
        bytesOut[q][s] += putBytes;
        messagesIn[peer][s] += putMsgs;
        bytesIn[peer][s] += putBytes;
        messagesIn[q][s] += getMsgs;
        bytesIn[q][s] += getBytes;
        messagesOut[peer][s] += getMsgs;
        bytesOut[peer][s] += getBytes;
    }

    private void derive() {
        for (int s = 0; s < steps; s++) {
            long bytes = 0, messages = 0, sum = 0;
            for (int q = 0; q < p; q++) {
                h[s] = Math.max(h[s], Math.max(bytesOut[q][s], bytesIn[q][s]));
                if (compute[q][s] > w[s] || q == 0) {
                    w[s] = compute[q][s];
                    slowest[s] = q;
                }
                measured[s] = Math.max(measured[s], compute[q][s] + wait[q][s]);
                bytes += bytesOut[q][s];
                messages += messagesOut[q][s];
                sum += compute[q][s];
            }
            meanCompute[s] = (double) sum / p;
            if (machine == null) {
                predicted[s] = -1;
            } else {
                long size = messages == 0 ? 0 : bytes / messages;
                double comm = synced[s] ? machine.superstepSeconds(h[s], size) : 0;
                predicted[s] = w[s] + Math.round(comm * 1e9);
            }
        }
    }

    /** @return max / mean compute of superstep s (1 when nothing was computed) */
    double imbalance(int s) {
        return meanCompute[s] > 0 ? w[s] / meanCompute[s] : 1;
    }

    /** @return the sum over supersteps of the largest compute over the sum of the mean compute (1 when none) */
    double overallImbalance() {
        double max = 0, mean = 0;
        for (int s = 0; s < steps; s++) {
            max += w[s];
            mean += meanCompute[s];
        }
        return mean > 0 ? max / mean : 1;
    }

    /**
     * @param k at most this many
     * @return the indices of the k supersteps of longest measured time, longest first
     */
    int[] slowestSteps(int k) {
        Integer[] order = new Integer[steps];
        for (int s = 0; s < steps; s++) order[s] = s;
        Arrays.sort(order, (a, b) -> Long.compare(measured[b], measured[a]));
        return Arrays.stream(order).limit(k).mapToInt(Integer::intValue).toArray();
    }

    /**
     * Writes one row per process and superstep, ordered by superstep then pid. Columns:
     * {@code superstep, pid, sync} (1 if the superstep ends with a sync), {@code compute_ns,
     * wait_ns, messages_out, bytes_out, messages_in, bytes_in, h_bytes} (this process's),
     * {@code step_h_bytes, step_predicted_ns} (empty without g and l), {@code step_measured_ns}
     * (the superstep's), {@code slowest} (1 for the process of largest compute in the superstep),
     * and what the process sent in the sync ({@link WireCounts#csvHeader()}: {@code data_messages,
     * payload_bytes, header_bytes, meta_messages, meta_bytes, collectives, connections,
     * connections_in_jvm, connections_shm, connections_tcp}: the connections open after the sync, and
     * those by the path their frames take; empty where not counted).
     *
     * @throws UncheckedIOException if it cannot be written
     */
    void writeCsv(Path file) {
        try (Writer out = Files.newBufferedWriter(file)) {
            out.write("superstep,pid,sync,compute_ns,wait_ns,messages_out,bytes_out,messages_in,bytes_in,h_bytes,"
                    + "step_h_bytes,step_predicted_ns,step_measured_ns,slowest," + WireCounts.csvHeader() + "\n");
            for (int s = 0; s < steps; s++) {
                for (int q = 0; q < p; q++) {
                    out.write(s + "," + q + "," + (synced[s] ? 1 : 0) + "," + compute[q][s] + "," + wait[q][s] + ","
                            + messagesOut[q][s] + "," + bytesOut[q][s] + "," + messagesIn[q][s] + "," + bytesIn[q][s] + ","
                            + Math.max(bytesOut[q][s], bytesIn[q][s]) + "," + h[s] + ","
                            + (predicted[s] < 0 ? "" : Long.toString(predicted[s])) + "," + measured[s] + ","
                            + (slowest[s] == q ? 1 : 0) + sentColumns(sent[q][s]) + "\n");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("lpf run --profile: cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** @return {@code ,v,v,...} of the counters, an empty field for each one not counted */
    private static String sentColumns(long[] counters) {
        StringBuilder b = new StringBuilder();
        for (long v : counters) b.append(',').append(v < 0 ? "" : Long.toString(v));
        return b.toString();
    }

    /** @return whether any process's sync was counted (the engine counts what it sends) */
    boolean sentCounted() {
        for (long[][] q : sent) for (long[] c : q) if (c[WireCounts.DATA_MESSAGES] >= 0) return true;
        return false;
    }

    /**
     * @param s a superstep
     * @param counter one of {@link WireCounts}'s counters, or {@link WireCounts#COUNTERS} for the connections
     * @return the largest value over the processes that counted it, or -1 if none did
     */
    long maxSent(int s, int counter) {
        long max = -1;
        for (int q = 0; q < p; q++) max = Math.max(max, sent[q][s][counter]);
        return max;
    }

    /** @return e.g. {@code 1+3}: the most data and meta messages any process sent in superstep s ("-" if not counted) */
    private String sentMessages(int s) {
        long data = maxSent(s, WireCounts.DATA_MESSAGES), meta = maxSent(s, WireCounts.META_MESSAGES);
        return data < 0 ? "-" : data + "+" + (meta < 0 ? "?" : Long.toString(meta));
    }

    /**
     * @param k the number of slowest supersteps to list
     * @return the summary {@code lpf run --profile} prints: where the files are, g and l, the k
     *         slowest supersteps (index, h, w, predicted, measured, imbalance, slowest pid) and
     *         the overall imbalance; ends with a line separator
     */
    String summary(int k, Path csv, Path png, Path svg) {
        StringBuilder b = new StringBuilder();
        String nl = System.lineSeparator();
        b.append(String.format(Locale.ROOT, "lpf run --profile: %d supersteps x %d processes; records %s, timeline %s and %s%n",
                steps, p, csv, png, svg));
        if (!missing.isEmpty()) {
            b.append("warning: no records from pids ").append(missing).append(" (their rows are zero)").append(nl);
        }
        if (machine == null) {
            b.append("g and l: not available (the probe failed); no prediction").append(nl);
        } else {
            long size = machine.messageSizes()[machine.messageSizes().length - 1];
            b.append(String.format(Locale.ROOT, "g and l (probe, p=%d): g=%.3g s/B l=%s at %d B messages;"
                    + " predicted = w + l + g*h at each superstep's mean message size%n", p, machine.g(size),
                    time(Math.round(machine.l(size) * 1e9)), size));
        }
        int[] order = slowestSteps(k);
        b.append(String.format(Locale.ROOT, "slowest %d of %d supersteps:%n", order.length, steps));
        boolean counted = sentCounted();
        b.append(String.format(Locale.ROOT, "  %9s %12s %11s %11s %11s %9s %8s%s%n",
                "superstep", "h (bytes)", "w", "predicted", "measured", "imbalance", "slowest",
                counted ? String.format(Locale.ROOT, " %10s", "sent msgs") : ""));
        for (int s : order) {
            b.append(String.format(Locale.ROOT, "  %9s %12d %11s %11s %11s %9.2f %8s%s%n",
                    s + (synced[s] ? "" : " (end)"), h[s], time(w[s]), predicted[s] < 0 ? "-" : time(predicted[s]),
                    time(measured[s]), imbalance(s), "pid " + slowest[s],
                    counted ? String.format(Locale.ROOT, " %10s", sentMessages(s)) : ""));
        }
        long total = 0, predictedTotal = 0;
        for (int s = 0; s < steps; s++) {
            total += measured[s];
            predictedTotal += Math.max(0, predicted[s]);
        }
        b.append(String.format(Locale.ROOT, "all supersteps: measured %s, predicted %s; imbalance (max/mean compute) %.2f%n",
                time(total), machine == null ? "-" : time(predictedTotal), overallImbalance()));
        if (counted) b.append(sentSummary());
        return b.toString();
    }

    /**
     * @return the line on what the processes sent to other JVMs: per process and sync, the mean
     *         and the largest of data + meta messages and of payload + meta-data bytes, and the
     *         most connections any process held open
     */
    private String sentSummary() {
        long syncs = 0, maxMessages = 0, maxBytes = 0, connections = -1;
        long[] byPath = new long[WireCounts.PATHS];
        Arrays.fill(byPath, -1);
        double messages = 0, bytes = 0;
        boolean metaSeen = true;
        for (int q = 0; q < p; q++) {
            for (int s = 0; s < steps; s++) {
                long[] c = sent[q][s];
                if (c[WireCounts.DATA_MESSAGES] < 0) continue;
                if (c[WireCounts.META_MESSAGES] < 0) metaSeen = false;
                long m = c[WireCounts.DATA_MESSAGES] + Math.max(0, c[WireCounts.META_MESSAGES]);
                long by = c[WireCounts.PAYLOAD_BYTES] + c[WireCounts.HEADER_BYTES] + Math.max(0, c[WireCounts.META_BYTES]);
                syncs++;
                messages += m;
                bytes += by;
                maxMessages = Math.max(maxMessages, m);
                maxBytes = Math.max(maxBytes, by);
                connections = Math.max(connections, c[WireCounts.COUNTERS]);
                for (int path = 0; path < WireCounts.PATHS; path++) byPath[path] = Math.max(byPath[path], c[WireCounts.COUNTERS + 1 + path]);
            }
        }
        if (syncs == 0) return "";
        return String.format(Locale.ROOT, "sent per process and sync: mean %.1f messages, %.0f bytes; largest %d messages, %d bytes%s;"
                        + " connections open: %s (columns data_messages ... connections of the CSV)%n", messages / syncs, bytes / syncs,
                maxMessages, maxBytes, metaSeen ? "" : " (without the messages inside the MPI library's collectives)",
                connections < 0 ? "not applicable" : "at most " + connections + pathsText(byPath));
    }

    /** @return e.g. {@code  (by path, at most: in-JVM 0, shared memory 2, TCP 4)}, or nothing where the paths were not counted */
    private static String pathsText(long[] byPath) {
        if (byPath[WireCounts.TCP] < 0) return "";
        return String.format(Locale.ROOT, " (by path, at most: in-JVM %d, shared memory %d, TCP %d)", byPath[WireCounts.IN_JVM],
                byPath[WireCounts.SHARED_MEMORY], byPath[WireCounts.TCP]);
    }

    /** @return e.g. {@code 12.3 µs}, {@code 4.56 ms}, {@code 1.23 s} */
    static String time(long nanos) {
        if (nanos < 1_000_000) return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
        if (nanos < 1_000_000_000) return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }
}
