package org.lpf4j.examples;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.cr.Checkpoints;

import java.lang.foreign.MemorySegment;
import java.util.function.IntConsumer;

/**
 * Heat diffusion by Jacobi iteration on an n × n grid, rows split over the processes, halos
 * exchanged by puts, and checkpointed with {@link Checkpoints} so that a long run survives a lost
 * process ({@code lpf run --checkpoint-dir D --checkpoint-every 2s --restarts 1}).
 *
 * <p><b>The problem.</b> Cell (i, j), 0 ≤ i, j &lt; n, is surrounded by walls held at fixed
 * temperatures: the wall above row 0 at {@value #HOT}, the other three at 0. Initially every
 * cell is 0 except a hot spot at {@value #HOT}: the square of side max(1, n/8) in the middle.
 * One step replaces every cell by the mean of its four neighbours (walls included),
 * {@code u'(i,j) = 0.25·((u(i−1,j) + u(i+1,j)) + (u(i,j−1) + u(i,j+1)))}, evaluated in this
 * order for every cell; so the result is the same bit for bit at every p and after any restart.
 *
 * <p><b>Distribution.</b> Process s owns rows {@code [n·s/p, n·(s+1)/p)} (none when p &gt; n and
 * the range is empty), in two registered {@code double[]} buffers of {@code rows + 2} rows of
 * {@code n + 2} cells: a ghost row above and below, a wall column left and right. The ghost rows
 * hold the neighbouring processes' boundary rows, or a wall.
 *
 * <p><b>One step = one superstep.</b> Each process computes its rows from the current buffer into
 * the other one and swaps them, then <em>puts</em> its first owned row into the ghost row below of
 * the process owning the row above, and its last owned row into the ghost row above of the
 * process owning the row below; {@link Checkpoints#checkpoint()} ends the superstep (it is the
 * step's sync) and takes a checkpoint when one is due. BSP cost per step: local work 4·n·⌈n/p⌉
 * flops; h = 2 rows of n doubles per process (each sends and receives at most 2n doubles), so
 * {@code l + 16n·g}; plus, when a checkpoint is due, a copy of the owned rows. No allocation
 * per step (the step is {@link Checkpoints#iteration()}, which the checkpoint point advances).
 *
 * <p><b>Checkpoints.</b> Each process declares the owned rows of both buffers (which one is
 * current follows from the step's parity); the checkpoints count the steps. A restart restores them and
 * exchanges the halos once before going on. The program name in the checkpoint is
 * {@code "Heat n steps"}: another grid or step count is refused.
 *
 * <p>The check gathers every process's rows at process 0 (one superstep, h = n² doubles at
 * process 0), which runs the sequential Jacobi ({@link #sequential}) and demands equality bit
 * for bit; its summary gives the mean and maximum temperature and a hash of the grid's bits.
 *
 * <p>Symbols: n (grid side, default {@value #DEFAULT_N}), steps (default
 * {@value #DEFAULT_STEPS}).
 */
public final class Heat implements Spmd {
    private static final long serialVersionUID = 1L;
    /** The temperature of the top wall and of the initial hot spot. */
    public static final double HOT = 1.0;
    /** The default grid side. */
    public static final int DEFAULT_N = 512;
    /** The default number of steps. */
    public static final int DEFAULT_STEPS = 1000;
    /** The largest grid side (a process's buffer of (n + 2)² cells must fit one array). */
    public static final int MAX_N = 46_000;

    /** Creates the program. */
    public Heat() {}

    @Override
    public void run(Context ctx) {
        var symbols = ctx.args().symbols();
        long n = Inputs.symbol(symbols, 0, DEFAULT_N, "Heat", "grid side");
        long steps = Inputs.symbol(symbols, 1, DEFAULT_STEPS, "Heat", "step count");
        if (steps > Integer.MAX_VALUE) throw new IllegalArgumentException("Heat: step count " + steps + " > " + Integer.MAX_VALUE);
        Inputs.runOnce(ctx, prepare(ctx, (int) Math.min(n, Integer.MAX_VALUE), (int) steps));
    }

    /**
     * Allocates and registers this process's two buffers; collective (two syncs).
     *
     * @param ctx   a fresh context of this process
     * @param n     the grid side, 1 … {@value #MAX_N}
     * @param steps Jacobi steps per run, ≥ 0
     * @return the prepared program
     */
    public static Instance prepare(Context ctx, int n, int steps) {
        return new Instance(ctx, n, steps);
    }

    /**
     * The initial temperature of a cell.
     *
     * @param n the grid side
     * @param i the row, 0 … n−1
     * @param j the column, 0 … n−1
     * @return {@link #HOT} inside the hot spot, else 0
     */
    public static double initial(int n, int i, int j) {
        int side = Math.max(1, n / 8), first = (n - side) / 2;
        return i >= first && i < first + side && j >= first && j < first + side ? HOT : 0;
    }

    /**
     * The sequential reference: {@code steps} Jacobi steps on the whole grid.
     *
     * @param n     the grid side
     * @param steps steps
     * @return the grid with its walls: (n + 2) rows of n + 2 cells, cell (i, j) at
     *         {@code (i + 1)·(n + 2) + j + 1}
     */
    public static double[] sequential(int n, int steps) {
        int w = n + 2;
        double[] cur = new double[w * w], next = new double[w * w];
        fill(cur, n, 0, n, true);
        fill(next, n, 0, n, true);
        for (int s = 0; s < steps; s++) {
            sweep(cur, next, w, 1, n + 1);
            double[] t = cur;
            cur = next;
            next = t;
        }
        return cur;
    }

    /**
     * Writes rows [lo, hi) of the initial grid into buf's rows 1 … hi−lo (walls in columns 0 and
     * n + 1 are 0, and so is the ghost row below), and the top wall into row 0 if {@code top}.
     */
    private static void fill(double[] buf, int n, int lo, int hi, boolean top) {
        int w = n + 2;
        java.util.Arrays.fill(buf, 0);
        for (int i = lo; i < hi; i++) {
            int row = (i - lo + 1) * w + 1;
            for (int j = 0; j < n; j++) buf[row + j] = initial(n, i, j);
        }
        if (top) java.util.Arrays.fill(buf, 1, n + 1, HOT);
    }

    /** One Jacobi step of rows [from, to) of a buffer w cells wide, from src into dst; the one kernel of both the program and the reference. */
    static void sweep(double[] src, double[] dst, int w, int from, int to) {
        int n = w - 2;
        for (int i = from; i < to; i++) {
            int c = i * w, u = c - w, d = c + w;
            for (int j = 1; j <= n; j++) {
                dst[c + j] = 0.25 * ((src[u + j] + src[d + j]) + (src[c + j - 1] + src[c + j + 1]));
            }
        }
    }

    /** One process's part of a prepared Heat run. */
    public static final class Instance implements BspRun {
        private final Context ctx;
        private final int n, steps, p, s, w, lo, hi, rows, up, down, upRows;
        private final double[] a, b;
        private final Memslot aSlot, bSlot;
        private double[] result;
        private int resumedAt = -1;
        /** Whether the last run() threw: close() must not sync then (the section is failing). */
        private boolean failed;
        /** Called with the step number at the start of every step (tests inject failures here). */
        IntConsumer stepHook;

        Instance(Context ctx, int n, int steps) {
            if (n < 1 || n > MAX_N) throw new IllegalArgumentException("Heat: grid side " + n + " not in 1 … " + MAX_N);
            if (steps < 0) throw new IllegalArgumentException("Heat: step count " + steps + " < 0");
            this.ctx = ctx;
            this.n = n;
            this.steps = steps;
            p = ctx.nprocs();
            s = ctx.pid();
            w = n + 2;
            lo = first(n, p, s);
            hi = first(n, p, s + 1);
            rows = hi - lo;
            up = rows > 0 && lo > 0 ? owner(n, p, lo - 1) : -1;
            down = rows > 0 && hi < n ? owner(n, p, hi) : -1;
            upRows = up < 0 ? 0 : first(n, p, up + 1) - first(n, p, up);
            a = new double[(rows + 2) * w];
            b = new double[(rows + 2) * w];
            result = a;
            // Own: the two buffers, plus the check's gather slot; the Checkpoints' beyond.
            ctx.resizeMemoryRegister(3 + Checkpoints.REGISTER_SLOTS);
            ctx.resizeMessageQueue(2 + Checkpoints.queueEntries(p));
            ctx.sync();
            aSlot = ctx.registerGlobal(MemorySegment.ofArray(a));
            bSlot = ctx.registerGlobal(MemorySegment.ofArray(b));
            ctx.sync();
        }

        private static int first(int n, int p, int s) { return (int) ((long) n * s / p); }

        private static int owner(int n, int p, int row) {
            int t = (int) (((long) row * p) / n);
            while (first(n, p, t) > row) t--;
            while (first(n, p, t + 1) <= row) t++;
            return t;
        }

        @Override
        public void reset() {
            // run() starts from the initial condition (or a checkpoint).
        }

        @Override
        public void run() {
            fill(a, n, lo, hi, lo == 0);
            fill(b, n, lo, hi, lo == 0);
            resumedAt = -1;
            failed = true;
            try (Checkpoints cr = Checkpoints.init(ctx, "Heat " + n + " " + steps)) {
                cr.protect("rows a", owned(a));
                cr.protect("rows b", owned(b));
                if (cr.resume().isPresent()) resumedAt = (int) cr.iteration();
                long t = cr.iteration();
                double[] cur = t % 2 == 0 ? a : b, next = t % 2 == 0 ? b : a;
                Memslot curSlot = t % 2 == 0 ? aSlot : bSlot, nextSlot = t % 2 == 0 ? bSlot : aSlot;
                exchange(curSlot);
                ctx.sync();
                IntConsumer hook = stepHook;
                while (t < steps) {
                    if (hook != null) hook.accept((int) t);
                    sweep(cur, next, w, 1, rows + 1);
                    double[] swap = cur;
                    cur = next;
                    next = swap;
                    Memslot swapSlot = curSlot;
                    curSlot = nextSlot;
                    nextSlot = swapSlot;
                    exchange(curSlot);
                    t = cr.checkpoint(); // the step's sync; step t done, t + 1 next
                }
                cr.flush(); // the last checkpoint complete: --resume of the finished job starts from it
                result = cur;
            }
            failed = false;
        }

        private MemorySegment owned(double[] buf) {
            return MemorySegment.ofArray(buf).asSlice(8L * w, 8L * rows * w);
        }

        /** Puts the first and last owned rows of {@code slot}'s buffer into the neighbours' ghost rows. */
        private void exchange(Memslot slot) {
            if (up >= 0) ctx.put(slot, 8L * (w + 1), up, slot, 8L * ((upRows + 1) * w + 1), 8L * n);
            if (down >= 0) ctx.put(slot, 8L * (rows * w + 1), down, slot, 8L, 8L * n);
        }

        /** @return the first grid row this process owns */
        public int firstRow() { return lo; }

        /** @return the number of grid rows this process owns (0 when p &gt; n leaves it none) */
        public int rowCount() { return rows; }

        /** @return a copy of this process's rows after the last run, row by row, n cells each */
        public double[] rows() {
            double[] out = new double[rows * n];
            for (int i = 0; i < rows; i++) System.arraycopy(result, (i + 1) * w + 1, out, i * n, n);
            return out;
        }

        /** @return the step the last run resumed from (a restart), or −1 if it started from the beginning */
        public int resumedAtStep() { return resumedAt; }

        @Override
        public String check() {
            double[] gathered = s == 0 ? new double[n * w] : new double[0];
            Memslot slot = ctx.registerGlobal(MemorySegment.ofArray(gathered));
            ctx.sync();
            if (s == 0) {
                System.arraycopy(result, w, gathered, 0, rows * w);
            } else if (rows > 0) {
                ctx.put(result == a ? aSlot : bSlot, 8L * w, 0, slot, 8L * lo * w, 8L * rows * w);
            }
            ctx.sync();
            ctx.deregister(slot);
            String resumed = resumedAt < 0 ? "" : ", resumed at step " + resumedAt;
            if (s != 0) {
                return String.format("Heat %dx%d, %d steps, %d processes: pid %d sent its %d rows to pid 0 for the check%s",
                        n, n, steps, p, s, rows, resumed);
            }
            double[] want = sequential(n, steps);
            double sum = 0, max = Double.NEGATIVE_INFINITY;
            long hash = 0;
            for (int i = 0; i < n; i++) {
                for (int j = 1; j <= n; j++) {
                    double got = gathered[i * w + j], expected = want[(i + 1) * w + j];
                    long bits = Double.doubleToRawLongBits(got);
                    if (bits != Double.doubleToRawLongBits(expected)) {
                        throw new IllegalStateException("Heat (n=" + n + ", steps=" + steps + ", p=" + p + "): cell ("
                                + i + ", " + (j - 1) + ") of pid " + owner(n, p, i) + " = " + got + ", sequentially "
                                + expected);
                    }
                    sum += got;
                    max = Math.max(max, got);
                    hash = Inputs.mix(hash ^ bits);
                }
            }
            return String.format("Heat %dx%d, %d Jacobi steps, %d processes%s: mean temperature %.12f, max %.12f, "
                    + "bits %016x; equal to the sequential Jacobi bit for bit: check ok", n, n, steps, p, resumed,
                    sum / ((double) n * n), max, hash);
        }

        /**
         * Deregisters the buffers after a sync; after a {@link #run()} that threw, without the
         * sync (local, like {@link Checkpoints#close()}), so that a failing process ends its
         * section with its own exception rather than with requests to slots it no longer has.
         */
        @Override
        public void close() {
            if (!failed) ctx.sync();
            ctx.deregister(aSlot);
            ctx.deregister(bSlot);
        }
    }
}
