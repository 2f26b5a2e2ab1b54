package org.lpf4j.engine.threads;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Measures the BSP parameters g and l of the threads engine for p processes, once per p per JVM.
 *
 * <p>For each message size m in {@link #SIZES} it times supersteps in which every process sends
 * h messages of m bytes (h ∈ {@link #H}) to the next h processes in a ring (wrapping, so a
 * process may get several when h ≥ p), and fits {@code T = l + g·(h·m)} by least squares over the lower quartiles of the batches. l is never
 * reported below the measured cost of an empty superstep, g never at or below zero. The
 * measurement aims at the time budget {@code lpf.engine.threads.probeMillis}, split evenly over
 * the cells; every cell runs at least 3 batches, so a slow machine may take longer. Each process
 * allocates two buffers of 4 MiB for it. Results are cached per p for the life of the JVM.
 * Caveat, measured on 2 cores: a probe in the first second of a JVM runs while the JIT compiler
 * holds a core for long stretches, so at p = cores it reports l of a few microseconds where a
 * warmed-up empty sync costs 0.15 µs; the figures describe the machine as the program meets it
 * then, and err on the pessimistic side.
 */
final class Probe {
    private Probe() {}

    static final long[] SIZES = {8, 128, 2048, 32768, 524288};
    static final int[] H = {1, 2, 4, 8};
    /** The most supersteps one timed batch may have. */
    private static final int MAX_BATCH = 1 << 16;
    private static final int MAX_BATCHES = 64;

    /** One measurement: g (s/B) and l (s) per message size. */
    record Fit(long[] sizes, double[] g, double[] l) {}

    private static final ConcurrentHashMap<Integer, Fit> CACHE = new ConcurrentHashMap<>();

    static Fit fitFor(int p) {
        Fit fit = CACHE.get(p);
        if (fit != null) return fit;
        synchronized (Probe.class) { // one measurement at a time: they would disturb each other
            try {
                return CACHE.computeIfAbsent(p, Probe::measure);
            } catch (org.lpf4j.FatalException e) {
                // The measurement's buffers did not fit: probe had no effect and may be retried.
                if (e.getCause() instanceof OutOfMemoryError oom) {
                    throw new org.lpf4j.LpfOutOfMemoryException("probe for p=" + p
                            + ": no memory for the measurement buffers (4 MiB per process)", oom);
                }
                throw e;
            }
        }
    }

    private static Fit measure(int p) {
        long budgetNanos = ThreadsEngine.PROBE_MILLIS.get() * 1_000_000L;
        int cells = SIZES.length * H.length + 1 + 1 + H.length; // + the warm-up cells
        long cellNanos = Math.max(1, budgetNanos / cells);
        double[][] seconds = new double[SIZES.length][H.length];
        double[] empty = new double[1];
        Sections.exec(p, p, ctx -> run(ctx, cellNanos, seconds, empty), Args.NONE);
        double[] g = new double[SIZES.length];
        double[] l = new double[SIZES.length];
        for (int s = 0; s < SIZES.length; s++) {
            double[] x = new double[H.length];
            for (int k = 0; k < H.length; k++) x[k] = (double) H[k] * SIZES[s];
            double[] fit = leastSquares(x, seconds[s]);
            l[s] = Math.max(fit[0], empty[0]);
            g[s] = Math.max(fit[1], 1e-13);
        }
        return new Fit(SIZES.clone(), g, l);
    }

    private static void run(Context ctx, long cellNanos, double[][] seconds, double[] empty) {
        int p = ctx.nprocs(), pid = ctx.pid();
        int hMax = H[H.length - 1];
        long maxBytes = hMax * SIZES[SIZES.length - 1];
        try (Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(maxBytes);
            MemorySegment dst = arena.allocate(maxBytes);
            MemorySegment control = arena.allocate(4);
            ctx.resizeMemoryRegister(3);
            ctx.resizeMessageQueue(hMax + p);
            ctx.sync();
            Memslot srcSlot = ctx.registerGlobal(src);
            Memslot dstSlot = ctx.registerGlobal(dst);
            Memslot controlSlot = ctx.registerGlobal(control);
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
            if (pid == 0) empty[0] = emptySeconds;
            for (int s = 0; s < SIZES.length; s++) {
                long m = SIZES[s];
                for (int k = 0; k < H.length; k++) {
                    int h = H[k];
                    double cellSeconds = cell(ctx, controlSlot, control, cellNanos, () -> {
                        for (int j = 0; j < h; j++) {
                            ctx.put(srcSlot, j * m, (pid + 1 + j) % p, dstSlot, j * m, m);
                        }
                    });
                    if (pid == 0) seconds[s][k] = cellSeconds;
                }
            }
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
    static double[] leastSquares(double[] x, double[] y) {
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
