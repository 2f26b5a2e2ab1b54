package org.lpf4j.examples;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Collectives;

import java.lang.foreign.MemorySegment;

/**
 * The BSP fast Fourier transform of n complex doubles (Bisseling, <i>Parallel Scientific
 * Computation</i>, ch. 3, the case n ≥ p²): local butterflies, one all-to-all redistribution,
 * local butterflies. Computes {@code X[k] = Σ_j x[j]·e^{−2πi·jk/n}}.
 *
 * <p><b>Processes.</b> The algorithm runs on P processes, P the largest power of two with
 * P ≤ p and P² ≤ n; processes P … p−1 stay idle (they only take part in the syncs). n must be a
 * power of two.
 *
 * <p><b>Distribution.</b> Write j = j1·P + j2 and k = k1 + n1·k2 with n1 = n/P. The input is
 * cyclic: process s holds x[j1·P + s], j1 = 0 … n1−1. The output is block-cyclic: process t
 * holds X[k1 + n1·k2] for its block of b = n1/P values of k1 ({@code k1 = t·b + q}) and all
 * k2 = 0 … P−1, stored at {@code out[k2·b + q]}.
 *
 * <ol>
 * <li>Local FFT of length n1 of the n1 values ({@link LocalFft}: radix 4, two passes over
 *     memory), its output multiplied by the twiddles {@code ω_n^{s·k1}} on its way out.</li>
 * <li>All-to-all ({@link Collectives#alltoall}): block t (b values) of every process to process
 *     t; h = (n/P)(P−1)/P complex numbers of 16 bytes.</li>
 * <li>b local FFTs of length P, one per k1 ({@link LocalFft#batch}, in place; the process's own
 *     block is read where step 1 left it).</li>
 * </ol>
 *
 * <p>BSP cost: one communication superstep (plus the sync that ends the run), local work
 * (n/P)·log2(n/P) + b·P·log2 P = (n/P)·log2 n radix-2-equivalent butterflies and n/P twiddle
 * products (none at pid 0, whose twiddles are 1); at P = 1 the superstep is empty and the local
 * FFT writes straight into the output;
 * {@code l + 16·(n/P)·(P−1)/P·g}. Allocates nothing per run after the first (which allocates
 * the batch's scratch block, 64·P complex numbers).
 *
 * <p>Input: {@link #input(long, long) x[j]} has real and imaginary parts uniform in [−1, 1).
 * The check compares every output value with a sequential FFT ({@link LocalFft}) of the whole input
 * (computed on every process, O(n log n)); the tests also compare with the plain DFT.
 *
 * <p>Symbols: n (default {@value #DEFAULT_N}), seed (default {@value #DEFAULT_SEED}).
 */
public final class Fft implements Spmd {
    private static final long serialVersionUID = 1L;
    /** The default length. */
    public static final long DEFAULT_N = 1 << 16;
    /** The default seed. */
    public static final long DEFAULT_SEED = 7;

    /** Creates the program. */
    public Fft() {}

    @Override
    public void run(Context ctx) {
        long n = Inputs.symbol(ctx.args().symbols(), 0, DEFAULT_N, "Fft", "length n");
        long seed = Inputs.symbol(ctx.args().symbols(), 1, DEFAULT_SEED, "Fft", "seed");
        Inputs.runOnce(ctx, prepare(ctx, n, seed));
    }

    /**
     * @param seed the input's seed
     * @param j    a global index
     * @return x[j] as {re, im}, in [−1, 1)²
     */
    public static double[] input(long seed, long j) {
        return new double[] {2 * Inputs.uniform(seed, 2 * j) - 1, 2 * Inputs.uniform(seed, 2 * j + 1) - 1};
    }

    /**
     * @param n the length
     * @param seed the seed
     * @return the whole input, interleaved
     */
    public static double[] wholeInput(int n, long seed) {
        double[] x = new double[2 * n];
        for (int j = 0; j < n; j++) {
            x[2 * j] = 2 * Inputs.uniform(seed, 2L * j) - 1;
            x[2 * j + 1] = 2 * Inputs.uniform(seed, 2L * j + 1) - 1;
        }
        return x;
    }

    /**
     * @param p the number of processes
     * @param n the length
     * @return P, the number of processes the FFT uses
     */
    public static int activeProcesses(int p, long n) {
        int procs = 1;
        while (2L * procs <= p && (2L * procs) * (2L * procs) <= n) procs *= 2;
        return procs;
    }

    /**
     * Generates this process's part of the input and registers the exchange buffers; collective.
     *
     * @param ctx  a fresh context of this process
     * @param n    the length, a power of two with n/P ≤ 2^29
     * @param seed the input's seed
     * @return the prepared program
     */
    public static Instance prepare(Context ctx, long n, long seed) { return new Instance(ctx, n, seed); }

    /** One process's part of a prepared FFT. */
    public static final class Instance implements BspRun {
        private final Context ctx;
        private final long seed;
        private final int n, procs, s, n1, b;
        private final boolean active;
        /** The input; its copy, the local FFT's workspace; the all-to-all's source and target. */
        private final double[] input, work, send, recv;
        /** The factors ω_n^{s·k1}, k1 &lt; n1, of the local FFT's output; null at pid 0 (all 1). */
        private final LocalFft.Twist twiddle;
        private final LocalFft local, across;
        private final Collectives coll;
        private final Memslot sendSlot, recvSlot;

        Instance(Context ctx, long n, long seed) {
            if (n < 1 || Long.bitCount(n) != 1 || n > (1L << 30)) {
                throw new IllegalArgumentException("Fft: the length must be a power of two in [1, 2^30], got " + n);
            }
            this.ctx = ctx;
            this.seed = seed;
            this.n = (int) n;
            procs = Fft.activeProcesses(ctx.nprocs(), n);
            s = ctx.pid();
            active = s < procs;
            n1 = this.n / procs;
            b = n1 / procs;
            int mine = active ? n1 : 0;
            input = new double[2 * mine];
            for (int j1 = 0; j1 < mine; j1++) {
                long j = (long) j1 * procs + s;
                input[2 * j1] = 2 * Inputs.uniform(seed, 2 * j) - 1;
                input[2 * j1 + 1] = 2 * Inputs.uniform(seed, 2 * j + 1) - 1;
            }
            work = input.clone();
            send = new double[procs > 1 ? 2 * mine : 0];
            recv = new double[2 * mine];
            local = active ? new LocalFft(n1) : null;
            twiddle = active && s > 0 ? local.twist(s, n) : null;
            across = new LocalFft(procs);
            ctx.resizeMemoryRegister(3);
            ctx.resizeMessageQueue(2L * procs);
            ctx.sync();
            coll = Collectives.initStrided(ctx, 0, procs, 1, 1, 0, 16L * b);
            sendSlot = ctx.registerGlobal(MemorySegment.ofArray(send));
            recvSlot = ctx.registerGlobal(MemorySegment.ofArray(recv));
            ctx.sync();
        }

        @Override
        public void reset() {
            System.arraycopy(input, 0, work, 0, input.length);
        }

        @Override
        public void run() {
            if (active && procs == 1) {
                local.forward(work, 0, recv, 0, null);
            } else if (active) {
                local.forward(work, 0, send, 0, twiddle);
                coll.alltoall(sendSlot, recvSlot, 16L * b);
            }
            ctx.sync();
            if (active && procs > 1) across.batch(recv, 0, b, send, s); // its own block from send
        }

        /** @return the number of processes computing (P) */
        public int activeProcesses() { return procs; }

        /**
         * @return this process's output, interleaved: entry {@code k2·b + q} is X[(pid·b + q) + (n/P)·k2];
         *         empty at an idle process
         */
        public double[] output() { return recv.clone(); }

        /**
         * @param i an index into {@link #output()}
         * @return the global index k of that entry
         */
        public long globalIndex(int i) {
            int k2 = i / b, q = i % b;
            return (long) s * b + q + (long) n1 * k2;
        }

        @Override
        public String check() {
            double[] x = wholeInput(n, seed);
            new LocalFft(n).forward(x, 0);
            double tol = 1e-12 * n * (Integer.numberOfTrailingZeros(n) + 1) + 1e-12;
            double worst = 0;
            int count = active ? n1 : 0;
            for (int i = 0; i < count; i++) {
                long k = globalIndex(i);
                double err = Math.hypot(recv[2 * i] - x[(int) (2 * k)], recv[2 * i + 1] - x[(int) (2 * k + 1)]);
                if (!(err <= tol)) {
                    throw new IllegalStateException("Fft (n=" + n + ", seed=" + seed + ", p=" + ctx.nprocs() + ", P="
                            + procs + ") at pid " + s + ": X[" + k + "] = (" + recv[2 * i] + ", " + recv[2 * i + 1]
                            + "), sequentially (" + x[(int) (2 * k)] + ", " + x[(int) (2 * k + 1)] + ")");
                }
                worst = Math.max(worst, err);
            }
            return String.format("FFT of %d complex doubles on %d of %d processes, one all-to-all: "
                    + "every value within %.1e of the sequential FFT (pid 0's largest difference %.1e)",
                    n, procs, ctx.nprocs(), tol, worst);
        }

        @Override
        public void close() {
            ctx.sync();
            coll.close();
            ctx.deregister(sendSlot);
            ctx.deregister(recvSlot);
        }
    }
}
