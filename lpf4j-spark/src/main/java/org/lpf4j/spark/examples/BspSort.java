package org.lpf4j.spark.examples;

import org.lpf4j.Context;
import org.lpf4j.spark.PartitionProgram;

import java.util.Arrays;
import java.util.Iterator;

/**
 * Sorts an RDD of longs inside one {@link org.lpf4j.spark.BspStage} by regular sampling (Shi and
 * Schaeffer's PSRS): each process sorts its partition and picks p regular samples; all samples
 * go to every process (an all-to-all of variable-sized parts: an empty partition has no samples),
 * which sorts them and picks the same p − 1 splitters; each process sends every other process
 * the run of its sorted data between two splitters (an all-to-all) and merges what it receives.
 * Both exchanges are {@link AllToAll}'s: the collectives' alltoall of the lengths, then
 * alltoallv. Process i returns the i-th range of the keys in order, so the result's partitions,
 * read in order, are the sorted input (what {@code rdd.sortBy(x -> x, true, p)} gives). Eight
 * supersteps (two to set up, three per exchange) plus the local sorts:
 * O((n/p)·log n) work, about n/p·8 bytes sent per process; every process ends with at most about
 * 2n/p keys for distinct keys.
 */
public final class BspSort implements PartitionProgram<Long, Long> {
    private static final long serialVersionUID = 1L;

    /** Creates the program. */
    public BspSort() {}

    @Override
    public Iterator<Long> run(Context ctx, Iterator<Long> partition) {
        int p = ctx.nprocs();
        AllToAll.needs(p).reserve(ctx);
        try (AllToAll toAll = new AllToAll(ctx)) {
            ctx.sync();
            return sort(p, toAll, partition);
        }
    }

    private static Iterator<Long> sort(int p, AllToAll exchange, Iterator<Long> partition) {
        BspPageRank.LongList in = new BspPageRank.LongList();
        partition.forEachRemaining(in::add);
        long[] keys = in.toArray();
        Arrays.sort(keys);
        long[] samples = new long[keys.length == 0 ? 0 : p];
        for (int k = 0; k < samples.length; k++) samples[k] = keys[(int) ((long) k * keys.length / p)];
        long[][] toAll = new long[p][];
        Arrays.fill(toAll, samples);
        long[][] allSamples = exchange.exchange(toAll);
        BspPageRank.LongList pooled = new BspPageRank.LongList();
        for (long[] s : allSamples) for (long v : s) pooled.add(v);
        long[] sorted = pooled.toArray();
        Arrays.sort(sorted);
        // Splitter j (1 ≤ j < p): keys below it go to processes < j.
        long[] splitters = new long[p - 1];
        for (int j = 1; j < p; j++) splitters[j - 1] = sorted.length == 0 ? 0 : sorted[(int) ((long) j * sorted.length / p)];
        long[][] runs = new long[p][];
        int from = 0;
        for (int q = 0; q < p; q++) {
            int to = q == p - 1 ? keys.length : lowerBound(keys, splitters[q]);
            to = Math.max(to, from);
            runs[q] = Arrays.copyOfRange(keys, from, to);
            from = to;
        }
        long[][] mine = exchange.exchange(runs);
        int total = 0;
        for (long[] r : mine) total += r.length;
        long[] merged = new long[total];
        int at = 0;
        for (long[] r : mine) {
            System.arraycopy(r, 0, merged, at, r.length);
            at += r.length;
        }
        Arrays.sort(merged); // p sorted runs: TimSort merges them in O(n/p · log p)
        return Arrays.stream(merged).boxed().iterator();
    }

    /** @return the first index whose key is ≥ {@code key} */
    private static int lowerBound(long[] a, long key) {
        int lo = 0, hi = a.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) lo = mid + 1; else hi = mid;
        }
        return lo;
    }
}
