package org.lpf4j.spi.kit;

import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * For engines only: the probe harness. Measures the BSP parameters g and l over the public
 * {@link Context} of any engine, and caches them per engine and p for the life of the JVM (and,
 * through {@link #machine}, on disk per machine: {@link ProbeCache}).
 *
 * <p>For each message size m in {@link #SIZES} it times supersteps in which every process sends
 * h messages of m bytes (h ∈ {@link #H}) to the next h processes in a ring (wrapping, so a
 * process may get several when h ≥ p), and fits {@code T = l + g·(h·m)} by least squares over
 * the lower quartiles of the batches. l is never reported below the measured cost of an empty
 * superstep. Every fit is checked ({@link #checkedFit}): g plausible (between 1e-12 and 1e-3 s/B),
 * l not negative beyond the noise, the times within 25% (RMS) of the line; a size whose fit fails is measured again,
 * up to 3 measurements, and then reported with conservative bounds and a warning
 * ({@link Fit#warnings()}, {@link org.lpf4j.Machine#warnings()}, which {@code lpf probe} prints;
 * only a DEBUG line on the {@link System.Logger} {@code org.lpf4j.probe}, so that programs stay
 * quiet) — never a silent nonsense figure. Pid 0's clock is the one used, and pid 0's figures are
 * sent to every process with a put before {@link #measure} returns, so <em>every process gets
 * the identical result</em> (libraries choose algorithms from it: all processes must choose the
 * same). Every cell runs at least 3 batches, so a slow machine may take longer than the budget.
 * Each process allocates two buffers of 4 MiB and registers 4 slots. Caveat: a probe early in a
 * JVM's life may run while the JIT compiler holds a core, so the figures err on the pessimistic
 * side (the observation: {@code docs/performance-log.md}).
 */
public final class ProbeHarness {
    private ProbeHarness() {}

    /** The message sizes measured. */
    static final long[] SIZES = {8, 128, 2048, 32768, 524288};
    /** The h-relations measured. */
    static final int[] H = {1, 2, 4, 8};
    /** The most supersteps one timed batch may have. */
    private static final int MAX_BATCH = 1 << 16;
    private static final int MAX_BATCHES = 64;

    /**
     * One measurement: g (s/B) and l (s) per message size.
     *
     * @param sizes    message sizes in bytes
     * @param g        seconds per byte at each size
     * @param l        seconds per superstep at each size
     * @param warnings what was unreliable (empty when every fit passed its checks)
     */
    public record Fit(long[] sizes, double[] g, double[] l, java.util.List<String> warnings) {
        /** A fit without warnings. */
        public Fit(long[] sizes, double[] g, double[] l) { this(sizes, g, l, java.util.List.of()); }
    }

    /** Faster than 1 TB/s per process is not a copy this machine made: a fit below it is noise. */
    static final double G_MIN = 1e-12;
    /** Slower than 1 kB/s per process is not a memory or network transfer either. */
    static final double G_MAX = 1e-3;
    /** The largest root-mean-square residual of a fit, relative to its mean time. */
    static final double MAX_RESIDUAL = 0.25;
    /**
     * A negative intercept within this fraction of the mean time is noise (large messages, where
     * the g term dominates): l is then the empty superstep's time.
     */
    static final double NEGATIVE_INTERCEPT = 0.05;
    /** Measurements made before a fit that still fails its checks is reported unreliable. */
    static final int ATTEMPTS = 3;
    private static final System.Logger LOG = System.getLogger("org.lpf4j.probe");

    /**
     * The times of one measurement.
     *
     * @param seconds seconds per superstep, [size][h]
     * @param empty   seconds of an empty superstep
     */
    record Cells(double[][] seconds, double empty) {}

    /**
     * The checked fit of one size: {@code T = l + g·x} by least squares, or, when the fit fails a
     * check, {@code problem} says which.
     */
    record SizeFit(double g, double l, double residual, String problem) {}

    /**
     * Fits one message size and checks the fit: g plausible ({@link #G_MIN} ≤ g ≤ {@link #G_MAX}),
     * l not negative beyond {@link #NEGATIVE_INTERCEPT} of the mean time, the relative residual at
     * most {@link #MAX_RESIDUAL}.
     *
     * @param x     bytes per process of each cell (h·m)
     * @param y     seconds per superstep of each cell
     * @param empty seconds of an empty superstep (l is never reported below it)
     */
    static SizeFit fitSize(double[] x, double[] y, double empty) {
        double[] f = leastSquares(x, y);
        double mean = 0, squares = 0;
        for (double v : y) mean += v / y.length;
        for (int k = 0; k < x.length; k++) {
            double r = y[k] - (f[0] + f[1] * x[k]);
            squares += r * r / x.length;
        }
        double residual = mean > 0 ? Math.sqrt(squares) / mean : Double.POSITIVE_INFINITY;
        String problem = !(f[1] >= G_MIN) ? String.format("g=%.2g s/B is below %.0g s/B (faster than memory)", f[1], G_MIN)
                : f[1] > G_MAX ? String.format("g=%.2g s/B is above %.0g s/B", f[1], G_MAX)
                : !(f[0] > -NEGATIVE_INTERCEPT * mean) ? String.format("l=%.2g s is negative beyond the noise", f[0])
                : residual > MAX_RESIDUAL ? String.format("the times scatter %.0f%% around the line (at most %.0f%%)",
                        residual * 100, MAX_RESIDUAL * 100)
                : null;
        return new SizeFit(f[1], Math.max(f[0], empty), residual, problem);
    }

    /**
     * Fits every size, measuring again (up to {@link #ATTEMPTS} measurements in all) while a fit
     * fails its checks; a size whose fit never passes gets bounds instead of the fit — g the
     * largest seconds per byte of its cells (all time counted as transfer: an upper bound), l
     * the largest of the fitted intercept and the measured empty superstep — and a warning.
     * Every process passes the identical cells, so all take the same decisions (collective).
     *
     * @param measure makes the k-th measurement (k = 0, 1, ...)
     */
    static Fit checkedFit(java.util.function.IntFunction<Cells> measure) {
        int n = SIZES.length;
        double[] g = new double[n], l = new double[n];
        SizeFit[] last = new SizeFit[n];
        Cells[] lastCells = new Cells[n];
        boolean[] done = new boolean[n];
        int attempts = 0;
        for (int a = 0; a < ATTEMPTS; a++) {
            Cells cells = measure.apply(a);
            attempts++;
            boolean all = true;
            for (int s = 0; s < n; s++) {
                if (done[s]) continue;
                double[] x = new double[H.length];
                for (int k = 0; k < H.length; k++) x[k] = (double) H[k] * SIZES[s];
                SizeFit f = fitSize(x, cells.seconds()[s], cells.empty());
                last[s] = f;
                lastCells[s] = cells;
                if (f.problem() == null) {
                    g[s] = f.g();
                    l[s] = f.l();
                    done[s] = true;
                } else {
                    all = false;
                }
            }
            if (all) break;
        }
        java.util.List<String> warnings = new java.util.ArrayList<>();
        for (int s = 0; s < n; s++) {
            if (done[s]) continue;
            double upper = 0;
            for (int k = 0; k < H.length; k++) {
                upper = Math.max(upper, lastCells[s].seconds()[s][k] / ((double) H[k] * SIZES[s]));
            }
            g[s] = Math.max(upper, G_MIN);
            l[s] = Math.max(last[s].l(), lastCells[s].empty());
            warnings.add(String.format("%d B: unreliable after %d measurements (%s); reporting bounds g=%.3g s/B, l=%.3g s",
                    SIZES[s], attempts, last[s].problem(), g[s], l[s]));
        }
        return new Fit(SIZES.clone(), g, l, java.util.List.copyOf(warnings));
    }

    private static final ConcurrentHashMap<String, Fit> CACHE = new ConcurrentHashMap<>();

    /**
     * The cached fit of {@code engine} at {@code p}, measuring it first if needed (one
     * measurement at a time per JVM: they would disturb each other).
     *
     * @param engine  the engine's name (the cache key with p)
     * @param p       the number of processes
     * @param measure runs {@link #measure} on a fresh section of p processes and returns pid 0's result
     * @throws org.lpf4j.LpfOutOfMemoryException if the buffers did not fit (no effect; may be retried)
     */
    public static Fit fitFor(String engine, int p, Supplier<Fit> measure) {
        String key = engine + "/" + p;
        Fit fit = CACHE.get(key);
        if (fit != null) return fit;
        synchronized (ProbeHarness.class) {
            try {
                return CACHE.computeIfAbsent(key, k -> Objects.requireNonNull(measure.get(), "probe result"));
            } catch (org.lpf4j.FatalException e) {
                if (e.getCause() instanceof OutOfMemoryError oom) {
                    throw new org.lpf4j.LpfOutOfMemoryException("probe for p=" + p
                            + ": no memory for the measurement buffers (4 MiB per process)", oom);
                }
                throw e;
            }
        }
    }

    /** Runs an SPMD function on a fresh section of exactly p processes of an engine. */
    @FunctionalInterface
    public interface FreshSection {
        /** @throws org.lpf4j.FatalException if the section failed */
        void run(int p, org.lpf4j.Spmd spmd);
    }

    /**
     * What {@code probe()} returns: the cached fit of {@code engine} at p ({@link #fitFor}), read
     * from the disk cache ({@link ProbeCache}, {@code lpf.probe.cache=on}) or measured on a fresh
     * section ({@link #measure}, then written to the disk cache unless {@code lpf.probe.cache=off}),
     * as a {@link org.lpf4j.Machine}. For engines whose sections run in one JVM only: a
     * multi-JVM engine calls {@link #fitFor} (see {@link ProbeCache} on why). Costs a file read
     * (and a stat per smaller process count) on the first call per p and JVM when the disk cache
     * holds the figures, a measurement (about the budget) and a file write when it does not.
     *
     * @param engine      the engine's name
     * @param p           the processes of the context (its free processors, on a root)
     * @param freeP       the context's free processors
     * @param budgetNanos the measurement's time budget
     * @param section     starts a fresh section of the engine
     */
    public static org.lpf4j.Machine machine(String engine, int p, int freeP, long budgetNanos, FreshSection section) {
        Fit fit = fitFor(engine, p, () -> {
            String mode = ProbeCache.mode();
            if (mode.equals("on")) {
                var cached = ProbeCache.read(engine, p);
                if (cached.isPresent()) return cached.get().fit();
            }
            Fit[] result = new Fit[1];
            section.run(p, ctx -> {
                Fit f = measure(ctx, budgetNanos);
                if (ctx.pid() == 0) result[0] = f;
            });
            if (!mode.equals("off") && result[0] != null) ProbeCache.write(engine, p, result[0]);
            return result[0];
        });
        org.lpf4j.Machine m = new org.lpf4j.Machine(p, freeP, fit.sizes(), fit.g(), fit.l());
        for (String w : fit.warnings()) m = m.withWarning(w);
        // g of q < p communicating processes: measured wherever this JVM measured a q-process
        // section, or read from the disk cache (never measured here).
        boolean disk = ProbeCache.mode().equals("on");
        for (int q = p - 1; q >= 1; q--) {
            Fit smaller = CACHE.get(engine + "/" + q);
            if (smaller == null && disk) {
                var cached = ProbeCache.read(engine, q);
                if (cached.isPresent()) smaller = CACHE.computeIfAbsent(engine + "/" + q, k -> cached.get().fit());
            }
            if (smaller != null && java.util.Arrays.equals(smaller.sizes(), fit.sizes())) m = m.withSubsetG(q, smaller.g());
        }
        return m;
    }

    /**
     * The disk cache for a section that spans JVMs, collectively: every process of {@code ctx}
     * calls it at the start of a fresh section (in place of {@link #measure}). Pid 0 alone
     * decides: it learns which hosts the section's processes are on (one put of a host hash from
     * each), reads the cache file of that placement ({@link ProbeCache}: {@code <engine>-p<p>}
     * when all are on pid 0's host, {@code <engine>-<hosts>hosts-<hash>-p<p>} otherwise) unless
     * its {@code lpf.probe.cache} is not {@code on}, and sends the figures (with their warnings)
     * or "measure" to every process; so every process makes the same choice, whatever the files
     * of the other JVMs say. When it measures, pid 0 writes the file unless its
     * {@code lpf.probe.cache} is {@code off}.
     *
     * <p>Cost: four supersteps of small puts (p host hashes to pid 0, then pid 0's answer to
     * everyone) and a file read on pid 0; a measurement ({@link #measure}) and a write when the
     * cache had nothing.
     *
     * @param ctx         a context of a fresh section of the engine
     * @param engine      the engine's cache key ({@code mpi})
     * @param budgetNanos the measurement's time budget
     * @return the fit, identical on every process
     */
    public static Fit cachedOrMeasured(Context ctx, String engine, long budgetNanos) {
        int p = ctx.nprocs(), pid = ctx.pid();
        String key = engine;
        Fit cached = null;
        byte[] answer;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment hosts = arena.allocate(8L * p, 8);
            ctx.resizeMemoryRegister(2); // hosts here; length and figures in StartCollectives.fromPid0
            ctx.resizeMessageQueue(p);
            ctx.sync();
            Memslot hostsSlot = ctx.registerGlobal(hosts);
            ctx.sync();
            hosts.setAtIndex(ValueLayout.JAVA_LONG, pid, ProbeCache.hostHash());
            if (pid != 0) ctx.put(hostsSlot, 8L * pid, 0, hostsSlot, 8L * pid, 8);
            ctx.sync();
            answer = new byte[0];
            if (pid == 0) {
                long[] all = new long[p];
                for (int q = 0; q < p; q++) all[q] = hosts.getAtIndex(ValueLayout.JAVA_LONG, q);
                long[] distinct = Arrays.stream(all).distinct().sorted().toArray();
                if (distinct.length > 1) key = engine + "-" + distinct.length + "hosts-" + Integer.toHexString(Arrays.hashCode(distinct));
                if (ProbeCache.mode().equals("on")) {
                    var e = ProbeCache.read(key, p);
                    if (e.isPresent()) {
                        cached = e.get().fit();
                        answer = ProbeCache.encode(cached);
                    }
                }
            }
            ctx.deregister(hostsSlot);
        }
        byte[] shared = StartCollectives.fromPid0(ctx, answer);
        if (pid != 0 && shared.length > 0) cached = ProbeCache.decode(shared);
        if (cached != null) return cached;
        Fit fit = measure(ctx, budgetNanos);
        if (pid == 0 && !ProbeCache.mode().equals("off")) ProbeCache.write(key, p, fit);
        return fit;
    }

    /**
     * Collective: pid 0's fit at every process (the other processes' {@code mine} is ignored; pid 0's
     * may be null, which every process then learns as an empty answer).
     *
     * @return pid 0's fit, warnings included, or null if pid 0 had none
     */
    public static Fit fromPid0(Context ctx, Fit mine) {
        byte[] b = StartCollectives.fromPid0(ctx, ctx.pid() == 0 && mine != null ? ProbeCache.encode(mine) : new byte[0]);
        return b.length == 0 ? null : ctx.pid() == 0 ? mine : ProbeCache.decode(b);
    }

    /**
     * Measures g and l, collectively: every process of {@code ctx} calls it at the start of a
     * fresh section (it sets the capacities to what it needs and leaves nothing registered).
     *
     * @param ctx         a context of a fresh section of the engine
     * @param budgetNanos the time to aim at, split evenly over the cells
     * @return the fit, identical on every process
     */
    public static Fit measure(Context ctx, long budgetNanos) {
        int cells = SIZES.length * H.length + 1 + 1 + H.length; // + the warm-up cells
        long cellNanos = Math.max(1, budgetNanos / cells);
        Fit fit = checkedFit(attempt -> {
            double[][] seconds = new double[SIZES.length][H.length];
            double[] empty = new double[1];
            run(ctx, cellNanos, seconds, empty);
            return new Cells(seconds, empty[0]);
        });
        if (ctx.pid() == 0) report(ctx.nprocs(), fit, LOG);
        return fit;
    }

    /**
     * Logs an unreliable fit at {@link System.Logger.Level#DEBUG} on {@code org.lpf4j.probe}: a
     * program that probes (a {@code Collectives} object does) must not print a line on every run
     * because the machine was noisy; the warnings travel with the figures
     * ({@link org.lpf4j.Machine#warnings()}) and {@code lpf probe} prints them.
     *
     * @param p   the processes measured
     * @param fit the checked fit
     * @param log where to log ({@code org.lpf4j.probe})
     */
    static void report(int p, Fit fit, System.Logger log) {
        if (!fit.warnings().isEmpty() && log.isLoggable(System.Logger.Level.DEBUG)) {
            log.log(System.Logger.Level.DEBUG, "probe at p=" + p + ": " + String.join("; ", fit.warnings()));
        }
    }

    private static void run(Context ctx, long cellNanos, double[][] seconds, double[] empty) {
        int p = ctx.nprocs(), pid = ctx.pid();
        int hMax = H[H.length - 1];
        long maxBytes = hMax * SIZES[SIZES.length - 1];
        try (Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(maxBytes);
            MemorySegment dst = arena.allocate(maxBytes);
            MemorySegment control = arena.allocate(4);
            int figures = SIZES.length * H.length + 1;
            MemorySegment results = arena.allocate(ValueLayout.JAVA_DOUBLE, figures);
            ctx.resizeMemoryRegister(4);
            ctx.resizeMessageQueue(hMax + p);
            ctx.sync();
            Memslot srcSlot = ctx.registerGlobal(src);
            Memslot dstSlot = ctx.registerGlobal(dst);
            Memslot controlSlot = ctx.registerGlobal(control);
            Memslot resultsSlot = ctx.registerGlobal(results);
            ctx.sync();
            // Warm-up, not recorded: the empty and smallest cells once, so that the JIT has compiled
            // the put and sync paths before anything is timed (else the first cells time the
            // interpreter, ten times slower).
            cell(ctx, controlSlot, control, cellNanos, () -> { });
            for (int h : H) {
                cell(ctx, controlSlot, control, cellNanos, () -> {
                    for (int j = 0; j < h; j++) ctx.put(srcSlot, j * SIZES[0], (pid + 1 + j) % p, dstSlot, j * SIZES[0], SIZES[0]);
                });
            }
            // Every process takes part; pid 0's clock is the one reported (it also decides when to stop).
            double emptySeconds = cell(ctx, controlSlot, control, cellNanos, () -> { });
            results.setAtIndex(ValueLayout.JAVA_DOUBLE, 0, emptySeconds);
            for (int s = 0; s < SIZES.length; s++) {
                long m = SIZES[s];
                for (int k = 0; k < H.length; k++) {
                    int h = H[k];
                    double cellSeconds = cell(ctx, controlSlot, control, cellNanos, () -> {
                        for (int j = 0; j < h; j++) {
                            ctx.put(srcSlot, j * m, (pid + 1 + j) % p, dstSlot, j * m, m);
                        }
                    });
                    results.setAtIndex(ValueLayout.JAVA_DOUBLE, 1 + s * H.length + k, cellSeconds);
                }
            }
            // Pid 0's figures, to everyone: all processes must fit the same g and l.
            if (pid == 0) {
                for (int q = 1; q < p; q++) ctx.put(resultsSlot, 0, q, resultsSlot, 0, results.byteSize());
            }
            ctx.sync();
            empty[0] = results.getAtIndex(ValueLayout.JAVA_DOUBLE, 0);
            for (int s = 0; s < SIZES.length; s++) {
                for (int k = 0; k < H.length; k++) {
                    seconds[s][k] = results.getAtIndex(ValueLayout.JAVA_DOUBLE, 1 + s * H.length + k);
                }
            }
            ctx.deregister(resultsSlot);
            ctx.deregister(controlSlot);
            ctx.deregister(dstSlot);
            ctx.deregister(srcSlot);
        }
    }

    /**
     * Times batches of supersteps and returns the lower quartile of the seconds per superstep. Pid 0 decides,
     * after each batch, the size of the next one (about a sixteenth of the cell's time, so that a
     * batch spans many supersteps when they are short and few when they are long) or that the
     * cell is over, and tells the others with a put in a superstep of its own (not timed): so
     * every process makes the same syncs.
     */
    private static double cell(Context ctx, Memslot controlSlot, MemorySegment control, long cellNanos,
                               Runnable superstepRequests) {
        double[] samples = new double[MAX_BATCHES];
        int batches = 0;
        long cellStart = System.nanoTime();
        int batch = 1;
        while (batch > 0) {
            long t0 = System.nanoTime();
            for (int i = 0; i < batch; i++) {
                superstepRequests.run();
                ctx.sync();
            }
            double perSuperstep = (System.nanoTime() - t0) / 1e9 / batch;
            samples[batches++] = perSuperstep;
            if (ctx.pid() == 0) {
                boolean stop = batches >= MAX_BATCHES || (batches >= 3 && System.nanoTime() - cellStart > cellNanos);
                long target = (long) (cellNanos / 16e9 / Math.max(perSuperstep, 1e-9));
                control.set(ValueLayout.JAVA_INT, 0, stop ? 0 : (int) Math.max(1, Math.min(MAX_BATCH, target)));
                for (int q = 1; q < ctx.nprocs(); q++) ctx.put(controlSlot, 0, q, controlSlot, 0, 4);
            }
            ctx.sync();
            batch = control.get(ValueLayout.JAVA_INT, 0);
        }
        // The first batch is a single superstep, measured before the size adapts: not a sample.
        // The lower quartile, not the median: on a 2-core machine the JIT compiler can hold a
        // core for tens of milliseconds early in a JVM's life, and the batches it disturbs
        // measure that, not the machine.
        double[] used = Arrays.copyOfRange(samples, batches > 1 ? 1 : 0, batches);
        Arrays.sort(used);
        return used[used.length / 4];
    }

    /** @return {intercept, slope} of the least-squares line through (x, y) */
    public static double[] leastSquares(double[] x, double[] y) {
        int n = x.length;
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (int i = 0; i < n; i++) {
            sx += x[i];
            sy += y[i];
            sxx += x[i] * x[i];
            sxy += x[i] * y[i];
        }
        double denominator = n * sxx - sx * sx;
        double slope = denominator == 0 ? 0 : (n * sxy - sx * sy) / denominator;
        return new double[] {(sy - slope * sx) / n, slope};
    }
}
