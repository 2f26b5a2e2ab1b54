package org.lpf4j.bench.programs;

import org.lpf4j.examples.Inputs;
import org.lpf4j.examples.SampleSort;

import java.util.Arrays;

/**
 * {@code Arrays.parallelSort(long[])} of the sample sort's input, inside a ForkJoinPool of the
 * given parallelism. The JDK splits the array by the <em>common</em> pool's parallelism (1 on a
 * 2-core machine, which makes {@code parallelSort} sequential) and runs the pieces in the pool of
 * the calling worker; {@link Programs#prepareCommonPool(int)} raises the former.
 */
final class SortPeer extends PoolPeer {
    private final long[] input, work;
    private final long seed;

    SortPeer(int threads, int n, long seed) {
        super(threads);
        this.seed = seed;
        input = new long[n];
        for (int i = 0; i < n; i++) input[i] = SampleSort.value(seed, i);
        work = input.clone();
    }

    @Override
    public void reset() { System.arraycopy(input, 0, work, 0, input.length); }

    @Override
    void compute() { Arrays.parallelSort(work); }

    @Override
    public void check() {
        long f1 = 0, f2 = 0, e1 = 0, e2 = 0;
        for (int i = 0; i < work.length; i++) {
            if (i > 0 && work[i - 1] > work[i]) throw new IllegalStateException("SortPeer: not sorted at " + i);
            f1 += work[i];
            f2 += Inputs.mix(work[i]);
            long v = SampleSort.value(seed, i);
            e1 += v;
            e2 += Inputs.mix(v);
        }
        if (f1 != e1 || f2 != e2) throw new IllegalStateException("SortPeer: the output is not a permutation of the input");
    }
}
