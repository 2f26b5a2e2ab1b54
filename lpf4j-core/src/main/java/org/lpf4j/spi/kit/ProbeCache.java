package org.lpf4j.spi.kit;

import org.lpf4j.spi.CoreParameters;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;

/**
 * For engines only: measured g and l kept on disk per machine, engine and process count, as C
 * LPF's {@code lpfprobe} keeps them, so that a program's first {@code probe()} reads a small file
 * instead of measuring. {@link ProbeHarness#machine} uses it; {@code lpf probe} refreshes it and
 * {@code lpf info} lists it ({@link #entries()}).
 *
 * <p><b>Where.</b> {@code <lpf.probe.cacheDir>/probe/<host>/<engine>-p<p>.properties}; the
 * directory defaults to {@code $XDG_CACHE_HOME/lpf4j}, else {@code ~/.cache/lpf4j}. The host name
 * in the path keeps machines that share a home directory apart.
 *
 * <p><b>Which file counts.</b> A file is used only if its machine identity equals this JVM's:
 * host name, number of cores, a hash of the CPU model ({@code /proc/cpuinfo}), the harness's
 * message sizes and h-relations, and the lpf4j version — a file from another machine, another
 * lpf4j or a changed harness is ignored and measured over. A missing, unreadable, corrupt or
 * foreign file is never an error: it is ignored with a DEBUG line on {@code org.lpf4j.probe}
 * and the JVM measures (and writes the file again). Writing is atomic (a temporary file in the
 * same directory, then a rename): a reader sees the old file or the new one, never half of
 * one; a failed write is a DEBUG line, never an error.
 *
 * <p><b>Cost.</b> A read is one small file (a few hundred bytes) plus, once per JVM, the host
 * name and {@code /proc/cpuinfo}; a write the same size plus a rename. Not a hot path: engines
 * call it once per process count and JVM.
 *
 * <p><b>Engines that run a section across JVMs must not read it on their own</b>: every process
 * of a measurement must make the same choice whether to measure, and each JVM would read its own
 * file (or none). They call {@link ProbeHarness#cachedOrMeasured} in the measuring section, where
 * pid 0 reads the file and sends the figures or the decision to measure to every process (the
 * MPI engine does); the hybrid engine's pid 0 decides the same way from its JVM's figures of
 * the layout.
 *
 * <p>Thread-safe; the parameters ({@code lpf.probe.cache}, {@code lpf.probe.cacheDir}) are read at
 * every call.
 */
public final class ProbeCache {
    private ProbeCache() {}

    /** The file format; a file of another format is foreign. */
    static final String FORMAT = "1";
    /** The lpf4j release whose harness wrote the figures (as {@code lpf info} prints it). */
    static final String LPF4J_VERSION = "0.1.0";
    private static final System.Logger LOG = System.getLogger("org.lpf4j.probe");
    private static volatile String identity;
    private static volatile String host;
    private static volatile Path lastWritten;

    /** @return the file this JVM wrote last, if any (what {@code lpf probe} reports) */
    public static Optional<Path> lastWritten() { return Optional.ofNullable(lastWritten); }

    /**
     * One cached measurement.
     *
     * @param file     where it is
     * @param engine   the engine's cache key ({@code threads})
     * @param p        the number of processes measured
     * @param measured when it was measured
     * @param fit      the figures
     */
    public record Entry(Path file, String engine, int p, Instant measured, ProbeHarness.Fit fit) {}

    /** @return {@code lpf.probe.cache}: {@code on}, {@code refresh} or {@code off} */
    public static String mode() { return CoreParameters.PROBE_CACHE.get(); }

    /** @return the directory this machine's files are in (it may not exist) */
    public static Path directory() {
        String dir = CoreParameters.PROBE_CACHE_DIR.get();
        Path base;
        if (!dir.isBlank()) {
            base = Path.of(dir);
        } else {
            String xdg = System.getenv("XDG_CACHE_HOME");
            base = xdg != null && !xdg.isBlank() ? Path.of(xdg, "lpf4j")
                    : Path.of(System.getProperty("user.home"), ".cache", "lpf4j");
        }
        return base.resolve("probe").resolve(safe(host()));
    }

    /**
     * @param engine the engine's cache key
     * @param p      the number of processes
     * @return the file of that measurement on this machine (it may not exist)
     */
    public static Path file(String engine, int p) { return directory().resolve(safe(engine) + "-p" + p + ".properties"); }

    /**
     * Reads a measurement of this machine; never throws for a bad file.
     *
     * @param engine the engine's cache key
     * @param p      the number of processes
     * @return the cached measurement, or empty when there is none usable (logged at DEBUG)
     */
    public static Optional<Entry> read(String engine, int p) {
        Path f = file(engine, p);
        if (!Files.isRegularFile(f)) return Optional.empty();
        try {
            Entry e = parse(f);
            if (!e.engine().equals(engine) || e.p() != p) throw new IllegalArgumentException("it is for " + e.engine() + " at p=" + e.p());
            return Optional.of(e);
        } catch (IOException | RuntimeException e) {
            debug("probe cache: ignoring " + f + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Writes a measurement of this machine atomically; a failure is a DEBUG line.
     *
     * @param engine the engine's cache key
     * @param p      the number of processes
     * @param fit    the figures
     * @return the file written, or empty if it could not be written
     */
    public static Optional<Path> write(String engine, int p, ProbeHarness.Fit fit) {
        Path f = file(engine, p);
        Properties props = properties(fit);
        props.setProperty("format", FORMAT);
        props.setProperty("machine", identity());
        props.setProperty("engine", engine);
        props.setProperty("p", Integer.toString(p));
        // Epoch milliseconds, not ISO-8601: parsing that loads java.time's formatters, which costs
        // a cold JVM milliseconds in the first probe(); the file's header comment has the date.
        props.setProperty("measuredMillis", Long.toString(System.currentTimeMillis()));
        Path tmp = null;
        try {
            Files.createDirectories(f.getParent());
            tmp = Files.createTempFile(f.getParent(), f.getFileName().toString(), ".tmp");
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                props.store(w, "lpf4j probe cache: g (s/B) and l (s) per message size; refresh with lpf probe");
            }
            try {
                Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (java.nio.file.AtomicMoveNotSupportedException e) {
                Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING);
            }
            lastWritten = f;
            return Optional.of(f);
        } catch (IOException | RuntimeException e) {
            debug("probe cache: could not write " + f + ": " + e);
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the temporary file stays; it is never read
                }
            }
            return Optional.empty();
        }
    }

    /** @return a hash of this machine's host name, to tell which processes of a section share a host */
    static long hostHash() {
        long h = 1125899906842597L;
        String name = host();
        for (int i = 0; i < name.length(); i++) h = 31 * h + name.charAt(i);
        return h;
    }

    /** @return {@code fit} as bytes for another JVM ({@link #decode}): the properties text of a file */
    static byte[] encode(ProbeHarness.Fit fit) {
        java.io.StringWriter w = new java.io.StringWriter();
        try {
            properties(fit).store(w, null);
        } catch (IOException e) { // a StringWriter does not fail
            throw new java.io.UncheckedIOException(e);
        }
        return w.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @return the fit of {@link #encode}'s bytes
     * @throws IllegalArgumentException if they are not such bytes
     */
    static ProbeHarness.Fit decode(byte[] bytes) {
        Properties props = new Properties();
        try {
            props.load(new java.io.StringReader(new String(bytes, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new IllegalArgumentException("probe figures from pid 0: " + e.getMessage(), e);
        }
        return fit(props);
    }

    /**
     * @return the usable measurements of this machine in the cache directory, by engine and p
     *         (foreign and corrupt files left out); empty when the directory does not exist
     */
    public static List<Entry> entries() {
        List<Entry> list = new ArrayList<>();
        Path dir = directory();
        if (!Files.isDirectory(dir)) return list;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.properties")) {
            for (Path f : files) {
                try {
                    list.add(parse(f));
                } catch (IOException | RuntimeException e) {
                    debug("probe cache: ignoring " + f + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            debug("probe cache: cannot list " + dir + ": " + e);
        }
        list.sort(java.util.Comparator.comparing(Entry::engine).thenComparingInt(Entry::p));
        return list;
    }

    private static Entry parse(Path f) throws IOException {
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
            props.load(r);
        }
        if (!FORMAT.equals(props.getProperty("format"))) throw new IllegalArgumentException("not a format " + FORMAT + " file");
        String machine = props.getProperty("machine");
        if (!identity().equals(machine)) throw new IllegalArgumentException("measured on another machine or lpf4j (" + machine + ")");
        String engine = required(props, "engine");
        int p = Integer.parseInt(required(props, "p"));
        Instant measured = Instant.ofEpochMilli(Long.parseLong(required(props, "measuredMillis")));
        return new Entry(f, engine, p, measured, fit(props));
    }

    /** @return the figures' part of a file: sizes, g, l, warnings */
    private static Properties properties(ProbeHarness.Fit fit) {
        Properties props = new Properties();
        props.setProperty("sizes", join(Arrays.stream(fit.sizes()).mapToObj(Long::toString).toList()));
        props.setProperty("g", join(Arrays.stream(fit.g()).mapToObj(Double::toString).toList()));
        props.setProperty("l", join(Arrays.stream(fit.l()).mapToObj(Double::toString).toList()));
        props.setProperty("warnings", Integer.toString(fit.warnings().size()));
        for (int i = 0; i < fit.warnings().size(); i++) props.setProperty("warning." + i, fit.warnings().get(i));
        return props;
    }

    /**
     * @return the figures of {@link #properties}
     * @throws IllegalArgumentException (or NumberFormatException) if a figure is missing or wrong
     */
    private static ProbeHarness.Fit fit(Properties props) {
        String[] sizes = required(props, "sizes").split(","), g = required(props, "g").split(","),
                l = required(props, "l").split(",");
        if (sizes.length != g.length || sizes.length != l.length) throw new IllegalArgumentException("sizes, g and l differ in length");
        long[] s = new long[sizes.length];
        double[] gs = new double[sizes.length], ls = new double[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            s[i] = Long.parseLong(sizes[i].trim());
            gs[i] = Double.parseDouble(g[i].trim());
            ls[i] = Double.parseDouble(l[i].trim());
            if (i > 0 && s[i] <= s[i - 1]) throw new IllegalArgumentException("sizes not increasing");
            if (!(gs[i] > 0) || !(ls[i] > 0) || Double.isInfinite(gs[i]) || Double.isInfinite(ls[i])) {
                throw new IllegalArgumentException("g or l not a positive finite number at " + s[i] + " B");
            }
        }
        int n = Integer.parseInt(required(props, "warnings"));
        List<String> warnings = new ArrayList<>();
        for (int i = 0; i < n; i++) warnings.add(required(props, "warning." + i));
        return new ProbeHarness.Fit(s, gs, ls, List.copyOf(warnings));
    }

    private static String required(Properties props, String key) {
        String v = props.getProperty(key);
        if (v == null || v.isBlank()) throw new IllegalArgumentException("no " + key);
        return v;
    }

    private static String join(List<String> parts) { return String.join(",", parts); }

    /** @return a file-name-safe form of {@code s} */
    private static String safe(String s) {
        StringBuilder t = new StringBuilder(s.length() + 1);
        if (s.isEmpty() || s.startsWith(".")) t.append('_');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            t.append(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
                    ? c : '_');
        }
        return t.toString();
    }

    /**
     * @return this machine as the cache sees it: host, cores, CPU model hash, the harness's sizes
     *         and h-relations, the lpf4j version (computed once per JVM)
     */
    static String identity() {
        String id = identity;
        if (id == null) {
            // A plain loop, no stream: this runs in a program's first probe(), where a cold JVM
            // would pay for bootstrapping lambdas and streams.
            String cpu = "";
            try (java.io.BufferedReader r = Files.newBufferedReader(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    if (line.startsWith("model name")) {
                        cpu = line;
                        break;
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not Linux: the core count and host name must do
            }
            identity = id = "host=" + host() + ";cores=" + Runtime.getRuntime().availableProcessors()
                    + ";cpu=" + Integer.toHexString(cpu.hashCode()) + ";sizes=" + Arrays.toString(ProbeHarness.SIZES)
                    + ";h=" + Arrays.toString(ProbeHarness.H) + ";lpf4j=" + LPF4J_VERSION;
        }
        return id;
    }

    /** The host name without a name-service look-up (which may take seconds). */
    private static String host() {
        String h = host;
        if (h == null) {
            try {
                h = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            } catch (IOException | RuntimeException e) {
                h = "";
            }
            if (h.isEmpty()) h = System.getenv().getOrDefault("HOSTNAME", System.getenv().getOrDefault("COMPUTERNAME", ""));
            if (h.isEmpty()) {
                try {
                    h = java.net.InetAddress.getLocalHost().getHostName();
                } catch (IOException e) {
                    h = "localhost";
                }
            }
            host = h = h.toLowerCase(Locale.ROOT);
        }
        return h;
    }

    private static void debug(String message) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) LOG.log(System.Logger.Level.DEBUG, message);
    }
}
