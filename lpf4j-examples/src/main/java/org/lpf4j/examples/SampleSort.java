package org.lpf4j.examples;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Collectives;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Sample sort of n longs by regular sampling (PSRS, Shi and Schaeffer): the input is
 * block-distributed (process s holds global indices {@code [n·s/p, n·(s+1)/p)}); the output is
 * sorted across the processes (all of process s's values ≤ all of process s+1's), each process's
 * part in a local array ({@link Instance#sorted()}).
 *
 * <ol>
 * <li>Local sort of the n/p values (by their top bits into buckets, then each bucket by
 *     {@code Arrays.sort}); p regular samples; <b>allgather</b> of the samples
 *     (collectives library): h = p(p−1) words.</li>
 * <li>Every process sorts the p² samples and picks the same p−1 splitters; it cuts its sorted
 *     block into p buckets by binary search; <b>alltoall</b> (collectives library) of each
 *     bucket's (start, count): h = 2(p−1) words.</li>
 * <li>The bucket exchange: every process <em>gets</em> bucket s of every other process into its
 *     output array: h ≤ 2n/p words for distinct keys (the PSRS bound; equal keys may unbalance
 *     it).</li>
 * <li>A p-way merge of the received sorted runs, by ⌈log2 p⌉ passes of pairwise merges (each
 *     merging from both ends at once, branch-free).</li>
 * </ol>
 *
 * <p>BSP cost: 3 supersteps; local work O((n/p)·log(n/p) + p²·log p + (n/p)·log p); h-relations
 * p(p−1), 2(p−1) and ≤ 2n/p words: {@code 3l + (2n/p + p² + 2p)·8g} bytes. No allocation per run
 * unless a bucket exchange delivers more than the output arrays hold (they then grow, once).
 *
 * <p>The input value at global index i is {@link #value(long, long) value(seed, i)} (uniform
 * random longs). The check ({@link Instance#check()}) is sequential in spirit and O(n): every
 * process verifies that its part is sorted, that the parts are ordered across processes, and that
 * the result has the input's count and the input's multiset fingerprint (two order-independent
 * 64-bit sums), computed sequentially over the whole input.
 *
 * <p>Symbols: n (default {@value #DEFAULT_N}), seed (default {@value #DEFAULT_SEED}).
 */
public final class SampleSort implements Spmd {
    private static final long serialVersionUID = 1L;
    /** The default number of values. */
    public static final long DEFAULT_N = 1_000_000L;
    /** The default seed. */
    public static final long DEFAULT_SEED = 42L;

    /** Creates the program. */
    public SampleSort() {}

    @Override
    public void run(Context ctx) {
        long n = Inputs.symbol(ctx.args().symbols(), 0, DEFAULT_N, "SampleSort", "number of values n");
        long seed = Inputs.symbol(ctx.args().symbols(), 1, DEFAULT_SEED, "SampleSort", "seed");
        Inputs.runOnce(ctx, prepare(ctx, n, seed));
    }

    /**
     * @param seed the input's seed
     * @param i    a global index
     * @return the input value at index i
     */
    public static long value(long seed, long i) { return Inputs.randomLong(seed, i); }

    /**
     * @param seed the input's seed
     * @param i    a global index
     * @param keys the number of distinct keys, or 0 for the whole long range
     * @return the input value at index i: {@link #value(long, long)}, reduced modulo {@code keys} if positive
     */
    public static long value(long seed, long i, long keys) {
        long v = value(seed, i);
        return keys > 0 ? Math.floorMod(v, keys) : v;
    }

    /**
     * Generates this process's block of the input and registers the program's memory; collective.
     *
     * @param ctx  a fresh context of this process (the call reserves what it needs)
     * @param n    the number of values, at most {@code p · (2^31 − 9)}
     * @param seed the input's seed
     * @return the prepared program
     */
    public static Instance prepare(Context ctx, long n, long seed) { return new Instance(ctx, n, seed, 0); }

    /**
     * {@link #prepare(Context, long, long)} with values drawn from {@code keys} distinct keys (many
     * equal keys: PSRS's bucket bound no longer holds and a receiver's arrays may grow).
     *
     * @param ctx  a fresh context of this process
     * @param n    the number of values
     * @param seed the input's seed
     * @param keys the number of distinct keys, or 0 for the whole long range
     * @return the prepared program
     */
    public static Instance prepare(Context ctx, long n, long seed, long keys) { return new Instance(ctx, n, seed, keys); }

    /** One process's part of a prepared sample sort. */
    public static final class Instance implements BspRun {
        private static final int RECORD = 6; // count, fingerprint 1, fingerprint 2, first, last, sorted
        /** Bits of the local sort's distribution pass, and the block size from which it is used. */
        private static final int RADIX_BITS = 10, RADIX_MIN = 1 << 16;
        private final Context ctx;
        private final long n, seed, keys;
        private final int p, s;
        private final long[] input, data, samples, allSamples, splitters, ctrl, recvCtrl, checkMine, checkAll;
        /**
         * The sorted block, which the other processes read: {@code data} itself, or, when the
         * local sort goes through buckets (decided from n/p, so alike on every process), a
         * second array the buckets are scattered into, which saves copying them back.
         */
        private final long[] sortedBlock;
        private final int[] runStart, mergeStart, bucketStart = new int[1 << RADIX_BITS];
        private final Collectives coll;
        private final Memslot dataSlot, samplesSlot, allSamplesSlot, ctrlSlot, recvCtrlSlot, checkMineSlot,
                checkAllSlot;
        private long[] out, tmp, result;
        private Memslot outSlot;
        private int outLength;

        Instance(Context ctx, long n, long seed, long keys) {
            this.ctx = ctx;
            this.n = n;
            this.seed = seed;
            this.keys = keys;
            this.p = ctx.nprocs();
            this.s = ctx.pid();
            long lo = n * s / p, hi = n * (s + 1) / p;
            if (hi - lo > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("SampleSort: n=" + n + " gives " + (hi - lo)
                        + " values to one of " + p + " processes; at most 2^31-9 fit in an array");
            }
            int m = (int) (hi - lo);
            input = new long[m];
            for (int i = 0; i < m; i++) input[i] = value(seed, lo + i, keys);
            data = input.clone();
            sortedBlock = n / p >= RADIX_MIN ? new long[m] : data;
            samples = new long[p];
            allSamples = new long[p * p];
            splitters = new long[Math.max(0, p - 1)];
            ctrl = new long[2 * p];
            recvCtrl = new long[2 * p];
            checkMine = new long[RECORD];
            checkAll = new long[RECORD * p];
            runStart = new int[p + 1];
            mergeStart = new int[p + 1];
            int capacity = (int) Math.min(Integer.MAX_VALUE - 8, 2L * m + 1024);
            out = new long[capacity];
            tmp = new long[capacity];

            ctx.resizeMemoryRegister(10);
            ctx.resizeMessageQueue(4L * p);
            ctx.sync();
            coll = Collectives.init(ctx, 1, 0, Math.max(8L * p, 8L * RECORD));
            dataSlot = ctx.registerGlobal(MemorySegment.ofArray(sortedBlock));
            samplesSlot = ctx.registerLocal(MemorySegment.ofArray(samples));
            allSamplesSlot = ctx.registerGlobal(MemorySegment.ofArray(allSamples));
            ctrlSlot = ctx.registerGlobal(MemorySegment.ofArray(ctrl));
            recvCtrlSlot = ctx.registerGlobal(MemorySegment.ofArray(recvCtrl));
            checkMineSlot = ctx.registerLocal(MemorySegment.ofArray(checkMine));
            checkAllSlot = ctx.registerGlobal(MemorySegment.ofArray(checkAll));
            outSlot = ctx.registerLocal(MemorySegment.ofArray(out));
            ctx.sync();
        }

        @Override
        public void reset() {
            System.arraycopy(input, 0, data, 0, input.length);
        }

        @Override
        public void run() {
            int m = data.length;
            long[] sorted = localSort();
            // superstep 1: regular samples to everyone
            for (int j = 0; j < p; j++) samples[j] = m == 0 ? Long.MAX_VALUE : sorted[(int) ((long) j * m / p)];
            System.arraycopy(samples, 0, allSamples, s * p, p);
            coll.allgather(samplesSlot, allSamplesSlot, 8L * p, true);
            ctx.sync();
            // superstep 2: splitters, buckets, (start, count) of each bucket to its receiver
            Arrays.sort(allSamples);
            int rho = p / 2;
            for (int j = 1; j < p; j++) splitters[j - 1] = allSamples[j * p + rho - 1];
            int start = 0;
            for (int k = 0; k < p; k++) {
                int end = k == p - 1 ? m : upperBound(sorted, start, m, splitters[k]);
                ctrl[2 * k] = start;
                ctrl[2 * k + 1] = end - start;
                start = end;
            }
            recvCtrl[2 * s] = ctrl[2 * s];
            recvCtrl[2 * s + 1] = ctrl[2 * s + 1];
            coll.alltoall(ctrlSlot, recvCtrlSlot, 16);
            ctx.sync();
            // superstep 3: every process gets its bucket from every other process
            long total = 0;
            for (int k = 0; k < p; k++) total += recvCtrl[2 * k + 1];
            if (total > out.length) grow(total);
            runStart[0] = 0;
            for (int k = 0; k < p; k++) runStart[k + 1] = runStart[k] + (int) recvCtrl[2 * k + 1];
            for (int k = 0; k < p; k++) {
                long count = recvCtrl[2 * k + 1];
                if (k == s) System.arraycopy(sorted, (int) recvCtrl[2 * k], out, runStart[k], (int) count);
                else if (count > 0) ctx.get(k, dataSlot, 8 * recvCtrl[2 * k], outSlot, 8L * runStart[k], 8 * count);
            }
            ctx.sync();
            outLength = (int) total;
            result = merge();
        }

        /**
         * Sorts {@code data} into {@link #sortedBlock}: when n/p is at least {@value #RADIX_MIN}
         * the values are first distributed by their top {@value #RADIX_BITS} bits (sign flipped,
         * so in signed order) into {@code sortedBlock}, by a counting pass and a scattering pass;
         * each bucket (about 5000 values for the benchmark's 5·10^6 per process) is then sorted
         * by {@code Arrays.sort} while it sits in cache. On uniform random longs this sorts
         * 5·10^6 values in about 47 ms of CPU against 58 for one {@code Arrays.sort} of the whole
         * block (2.5·10^6: 22 against 27); 8 and 12 bits were slower. Values sharing their top
         * bits (few distinct keys) land in one bucket and cost one extra pass. (Otherwise
         * {@code data} is sorted in place.)
         *
         * @return the sorted block ({@link #sortedBlock})
         */
        private long[] localSort() {
            int m = data.length;
            long[] to = sortedBlock;
            if (to == data) {
                Arrays.sort(data);
                return data;
            }
            int[] start = bucketStart;
            Arrays.fill(start, 0);
            for (int i = 0; i < m; i++) start[bucket(data[i])]++;
            int sum = 0;
            for (int b = 0; b < start.length; b++) {
                int c = start[b];
                start[b] = sum;
                sum += c;
            }
            // after the scatter, start[b] is the end of bucket b
            for (int i = 0; i < m; i++) {
                long v = data[i];
                to[start[bucket(v)]++] = v;
            }
            int from = 0;
            for (int b = 0; b < start.length; b++) {
                Arrays.sort(to, from, start[b]);
                from = start[b];
            }
            return to;
        }

        private static int bucket(long v) { return (int) (v >>> (64 - RADIX_BITS)) ^ (1 << (RADIX_BITS - 1)); }

        /** @return the first index in {@code [from, to)} whose value exceeds {@code key} */
        private static int upperBound(long[] a, int from, int to, long key) {
            int lo = from, hi = to;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (a[mid] <= key) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        }

        /** Merges the p sorted runs of {@code out} pairwise; returns the array holding the result. */
        private long[] merge() {
            long[] src = out, dst = tmp;
            int runs = p;
            int[] bounds = runStart, next = mergeStart;
            while (runs > 1) {
                int r = 0;
                for (int k = 0; k < runs; k += 2) {
                    int a = bounds[k], mid = bounds[Math.min(k + 1, runs)], b = bounds[Math.min(k + 2, runs)];
                    mergeRuns(src, a, mid, b, dst);
                    next[r++] = a;
                }
                next[r] = bounds[runs];
                runs = r;
                long[] t = src; src = dst; dst = t;
                int[] u = bounds; bounds = next; next = u;
            }
            if (bounds != runStart) System.arraycopy(bounds, 0, runStart, 0, runs + 1);
            return src;
        }

        /**
         * Merges the sorted runs {@code [a, mid)} and {@code [mid, b)} of src into dst, from both
         * ends at once: each step puts the smallest remaining value at the front and the largest
         * at the back. Ties go left at the front and right at the back, so the front builds a
         * prefix and the back a suffix of the same stable merge; after ⌊(b−a)/2⌋ steps each, one
         * value is left if b − a is odd. The two ends are independent chains of work, and the
         * steps are branch-free (the selections become conditional moves; on random keys a
         * branch on the comparison is mispredicted half the time): about three times as fast as
         * the plain merge here (5M values in 9 against 29 ms). An end whose run is used up (by
         * either end) takes from the other run; the index clamps only keep the unused reads
         * inside the array.
         */
        static void mergeRuns(long[] src, int a, int mid, int b, long[] dst) {
            if (a == mid || mid == b) {
                System.arraycopy(src, a, dst, a, b - a);
                return;
            }
            int i = a, j = mid, front = a, ie = mid - 1, je = b - 1, back = b - 1;
            for (int t = (b - a) / 2; t > 0; t--) {
                long x = src[i], y = src[Math.min(j, b - 1)];
                boolean left = (x <= y | j > je) & i <= ie;
                dst[front++] = left ? x : y;
                i += left ? 1 : 0;
                j += left ? 0 : 1;
                long u = src[Math.max(ie, a)], v = src[je];
                boolean right = (v >= u | ie < i) & je >= j;
                dst[back--] = right ? v : u;
                je -= right ? 1 : 0;
                ie -= right ? 0 : 1;
            }
            if (((b - a) & 1) != 0) dst[front] = i <= ie ? src[i] : src[j];
        }

        private void grow(long total) {
            if (total > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("SampleSort at pid " + s + ": " + total
                        + " values land on one process; they do not fit in an array");
            }
            ctx.deregister(outSlot);
            out = new long[(int) total];
            tmp = new long[(int) total];
            outSlot = ctx.registerLocal(MemorySegment.ofArray(out));
        }

        /** @return a copy of this process's part of the sorted output (empty before the first run) */
        public long[] sorted() {
            return result == null ? new long[0] : Arrays.copyOf(result, outLength);
        }

        @Override
        public String check() {
            long f1 = 0, f2 = 0, sorted = 1;
            for (int i = 0; i < outLength; i++) {
                long v = result[i];
                f1 += v;
                f2 += Inputs.mix(v);
                if (i > 0 && result[i - 1] > v) sorted = 0;
            }
            checkMine[0] = outLength;
            checkMine[1] = f1;
            checkMine[2] = f2;
            checkMine[3] = outLength > 0 ? result[0] : 0;
            checkMine[4] = outLength > 0 ? result[outLength - 1] : 0;
            checkMine[5] = sorted;
            System.arraycopy(checkMine, 0, checkAll, RECORD * s, RECORD);
            coll.allgather(checkMineSlot, checkAllSlot, 8L * RECORD, true);
            ctx.sync();
            long e1 = 0, e2 = 0;
            for (long i = 0; i < n; i++) {
                long v = value(seed, i, keys);
                e1 += v;
                e2 += Inputs.mix(v);
            }
            long count = 0, g1 = 0, g2 = 0;
            boolean haveLast = false;
            long last = 0;
            for (int k = 0; k < p; k++) {
                int r = RECORD * k;
                count += checkAll[r];
                g1 += checkAll[r + 1];
                g2 += checkAll[r + 2];
                if (checkAll[r + 5] != 1) fail("the part of pid " + k + " is not sorted");
                if (checkAll[r] > 0) {
                    if (haveLast && last > checkAll[r + 3]) {
                        fail("pid " + k + " starts with " + checkAll[r + 3] + ", below an earlier pid's last value " + last);
                    }
                    haveLast = true;
                    last = checkAll[r + 4];
                }
            }
            if (count != n) fail("the output holds " + count + " values, the input " + n);
            if (g1 != e1 || g2 != e2) fail("the output is not a permutation of the input (fingerprints differ)");
            return String.format("sample sort of %d longs on %d processes: sorted, a permutation of the input; "
                    + "pid 0 holds %d (sequential check: equal)", n, p, checkAll[0]);
        }

        private void fail(String what) {
            throw new IllegalStateException("SampleSort (n=" + n + ", seed=" + seed + ", p=" + p + ") at pid " + s
                    + ": " + what);
        }

        @Override
        public void close() {
            ctx.sync();
            coll.close();
            ctx.deregister(dataSlot);
            ctx.deregister(samplesSlot);
            ctx.deregister(allSamplesSlot);
            ctx.deregister(ctrlSlot);
            ctx.deregister(recvCtrlSlot);
            ctx.deregister(checkMineSlot);
            ctx.deregister(checkAllSlot);
            ctx.deregister(outSlot);
        }
    }
}
