package org.lpf4j.bench.programs;

import org.jtransforms.fft.DoubleFFT_1D;
import org.lpf4j.examples.Fft;
import org.lpf4j.examples.LocalFft;
import pl.edu.icm.jlargearrays.ConcurrencyUtils;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * JTransforms' {@code DoubleFFT_1D.complexForward} of the FFT example's input, with JTransforms'
 * thread count (a process-wide setting of JLargeArrays' {@code ConcurrencyUtils}) set to the
 * given parallelism and a pool of that many daemon threads, both restored by {@link #close()}.
 */
final class FftPeer implements Peer {
    private final int n;
    private final double[] input, work;
    private final DoubleFFT_1D plan;
    private final ExecutorService pool, previousPool;
    private final int previousThreads;

    FftPeer(int threads, int n, long seed) {
        this.n = n;
        input = Fft.wholeInput(n, seed);
        work = input.clone();
        previousThreads = ConcurrencyUtils.getNumberOfThreads();
        previousPool = ConcurrencyUtils.getThreadPool();
        pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "jtransforms-peer");
            t.setDaemon(true);
            return t;
        });
        ConcurrencyUtils.setThreadPool(pool);
        ConcurrencyUtils.setNumberOfThreads(threads);
        plan = new DoubleFFT_1D(n);
    }

    @Override
    public void reset() { System.arraycopy(input, 0, work, 0, input.length); }

    @Override
    public void run() { plan.complexForward(work); }

    @Override
    public void check() {
        for (int k : new int[] {0, 1, n / 2, n - 1}) {
            double[] want = LocalFft.dftAt(input, k);
            double re = want[0], im = want[1];
            double err = Math.hypot(work[2 * k] - re, work[2 * k + 1] - im);
            if (!(err <= 1e-9 * n)) {
                throw new IllegalStateException("FftPeer: X[" + k + "] = (" + work[2 * k] + ", " + work[2 * k + 1]
                        + "), the DFT gives (" + re + ", " + im + ")");
            }
        }
    }

    @Override
    public void close() {
        ConcurrencyUtils.setThreadPool(previousPool);
        ConcurrencyUtils.setNumberOfThreads(previousThreads);
        pool.shutdownNow();
    }
}
