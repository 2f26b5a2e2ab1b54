package org.lpf4j.examples;

import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.coll.Collectives;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Sample sort of n longs by regular sampling (PSRS, Shi and Schaeffer), through buckets: the
 * input is block-distributed (process s holds global indices {@code [n·s/p, n·(s+1)/p)}); the
 * output is sorted across the processes (all of process s's values ≤ all of process s+1's), each
 * process's part in a local array ({@link Instance#sorted()}).
 *
 * <ol>
 * <li>Every process distributes its n/p values by their top b bits into 2^b buckets (b from n
 *     alone, so alike everywhere: at least 16384 values per bucket on average, b ≤ 9), by a
 *     counting and a scattering pass; the buckets are in value order and unsorted inside. Its p
 *     regular samples (the values of ranks j·(n/p)/p, j &lt; p, as if the block were sorted)
 *     come from splitting the buckets that hold those ranks aside, as in step 4, and sorting
 *     the parts that hold them; <b>allgather</b> of the samples (collectives library):
 *     h = p(p−1) words.</li>
 * <li>Every process sorts the p² samples and picks the same p−1 splitters; it partitions the
 *     bucket of each splitter around it, which cuts its block into p pieces, piece k holding the
 *     values between splitters k−1 and k; <b>alltoall</b> (collectives library) of each piece's
 *     (start, count): h = 2(p−1) words; every process <em>gets</em> from every other the edges
 *     of the buckets its values fall into: about 2^b/p + 2 ints from each.</li>
 * <li>The piece exchange: <b>alltoallv</b> (collectives library) of the pieces, each process's
 *     receive counts being the counts of step 2: the pieces land one after another in a receive
 *     array, one run per sender, each run in bucket order. Two supersteps (the call's own, for
 *     the pieces' offsets: h = 2(p−1) words; then the pieces: h ≤ 2n/p words for distinct keys,
 *     the PSRS bound; equal keys may unbalance it).</li>
 * <li>Each bucket is gathered from the p runs (the edges of step 2 say where it is in each) and
 *     sorted while it sits in cache: distributed by its next bits into parts of 24-48 values on
 *     average, each sorted by {@code Arrays.sort}, into the output array.</li>
 * </ol>
 *
 * <p>Every value is counted, scattered, fetched and sorted once, within its part of a bucket:
 * there is no merge of p sorted runs, whose ⌈log2 p⌉ passes over the data made p = 4 processes
 * on 2 cores slower than {@code Arrays.parallelSort}. With one process the block is the output:
 * its buckets are sorted where the scatter left them, after two supersteps.
 *
 * <p>BSP cost: 4 supersteps; local work O(n/p + 2^b + p²·log p) when the values spread over
 * their bits (parts of bounded size), up to O((n/p)·log(n/p)) when many share their top bits;
 * h-relations p(p−1) words, 2(p−1) words and about 2^b ints, 2(p−1) words, ≤ 2n/p words: about
 * {@code 4l + (2n/p + p² + 3p + 2^(b−1))·8g} bytes. No allocation per run unless a piece
 * exchange delivers more than the receive and output arrays hold, or a sampled bucket more than
 * the scratch array holds (they then grow, once), besides what {@code Arrays.sort} allocates
 * itself.
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
        /**
         * The fewest values per bucket on average (a bucket holds n / 2^bits values on average,
         * from this to twice it unless the bits are at their most), and the most bits: 8 to 10
         * bits cost about the same on 10^7 values, 9 the least; from 11 bits the scatter, which
         * then writes to 2048 places at once in as many pages, costs half as much again
         * (docs/performance.md).
         */
        private static final int BUCKET_TARGET = 16384, MAX_BITS = 9;
        /** The fewest values per part of a split bucket on average ({@link #split}), and the most bits of its parts. */
        private static final int PART = 24, MAX_PART_BITS = 12;
        private final Context ctx;
        private final long n, seed, keys;
        private final int p, s;
        /** Bits of the buckets (the same on every process: decided from n), their number, and the shift to them. */
        private final int bits, buckets, shift;
        private final long[] input, samples, allSamples, splitters, ctrl, recvCtrl, checkMine, checkAll;
        /** alltoallv's arguments in bytes: what this process sends each process, and receives from it. */
        private final long[] sendCounts, sendOffsets, recvCounts, recvOffsets;
        /** The ranges {@code [runLo[j], runHi[j])} of one bucket in the receive array, one per sender at most. */
        private final int[] runLo, runHi;
        /**
         * The block distributed into buckets, which the other processes read: the array the input
         * is scattered into, or with one bucket a copy of the input ({@link #reset()} restores it).
         */
        private final long[] bucketed;
        /**
         * {@code edge[b]}: where bucket b starts in {@link #bucketed} ({@code edge[buckets] = m}),
         * read by the other processes; {@code recvEdge}: the edges of every process, at
         * {@code k·(buckets+1)}, as far as this process needs them; {@code outEdge}: where this
         * process's buckets start in {@code out}; {@code cursor}: the scatter's write positions.
         */
        private final int[] edge, recvEdge, outEdge, cursor, partEnd = new int[1 << MAX_PART_BITS];
        private final Collectives coll;
        private final Memslot dataSlot, edgeSlot, recvEdgeSlot, samplesSlot, allSamplesSlot, ctrlSlot, recvCtrlSlot,
                checkMineSlot, checkAllSlot;
        /** The pieces as alltoallv delivers them (one run per sender), and the sorted output. */
        private long[] recv, out, scratch, result;
        private Memslot recvSlot;
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
            bits = bitsFor(n);
            buckets = 1 << bits;
            shift = 64 - bits;
            input = new long[m];
            for (int i = 0; i < m; i++) input[i] = value(seed, lo + i, keys);
            bucketed = bits > 0 ? new long[m] : input.clone();
            edge = new int[buckets + 1];
            recvEdge = new int[p * (buckets + 1)];
            outEdge = new int[buckets + 1];
            cursor = new int[buckets];
            samples = new long[p];
            allSamples = new long[p * p];
            splitters = new long[Math.max(0, p - 1)];
            ctrl = new long[2 * p];
            recvCtrl = new long[2 * p];
            checkMine = new long[RECORD];
            checkAll = new long[RECORD * p];
            sendCounts = new long[p];
            sendOffsets = new long[p];
            recvCounts = new long[p];
            recvOffsets = new long[p];
            runLo = new int[p];
            runHi = new int[p];
            int received = p == 1 ? 0 : (int) Math.min(Integer.MAX_VALUE - 8, 2L * m + 1024);
            recv = new long[received];
            out = new long[received];
            scratch = new long[(int) Math.min(Integer.MAX_VALUE - 8, 2L * (n >> bits) + 1024)];

            long maxByteSize = Math.max(8L * p, 8L * RECORD);
            // own: ten slots; the gets of the buckets' edges (origin and target: 2(p-1)); the
            // collectives object declares its own
            Capacity.of(10, 2L * p).plus(Collectives.needs(p, 1, 0, maxByteSize)).reserve(ctx);
            coll = Collectives.init(ctx, 1, 0, maxByteSize);
            dataSlot = ctx.registerGlobal(MemorySegment.ofArray(bucketed));
            edgeSlot = ctx.registerGlobal(MemorySegment.ofArray(edge));
            recvEdgeSlot = ctx.registerLocal(MemorySegment.ofArray(recvEdge));
            samplesSlot = ctx.registerLocal(MemorySegment.ofArray(samples));
            allSamplesSlot = ctx.registerGlobal(MemorySegment.ofArray(allSamples));
            ctrlSlot = ctx.registerGlobal(MemorySegment.ofArray(ctrl));
            recvCtrlSlot = ctx.registerGlobal(MemorySegment.ofArray(recvCtrl));
            checkMineSlot = ctx.registerLocal(MemorySegment.ofArray(checkMine));
            checkAllSlot = ctx.registerGlobal(MemorySegment.ofArray(checkAll));
            recvSlot = ctx.registerLocal(MemorySegment.ofArray(recv));
            ctx.sync();
        }

        /**
         * @param n the number of values
         * @return the bucket bits: at least {@value #BUCKET_TARGET} values per bucket on average, at
         *         most {@value #MAX_BITS} bits
         */
        static int bitsFor(long n) {
            int bits = 0;
            while (bits < MAX_BITS && n >> (bits + 1) >= BUCKET_TARGET) bits++;
            return bits;
        }

        @Override
        public void reset() {
            if (bits == 0) System.arraycopy(input, 0, bucketed, 0, input.length); // else the scatter overwrites it
        }

        @Override
        public void run() {
            int m = input.length;
            distribute();
            // superstep 1: regular samples to everyone
            pickSamples(m);
            System.arraycopy(samples, 0, allSamples, s * p, p);
            coll.allgather(samplesSlot, allSamplesSlot, 8L * p, true);
            ctx.sync();
            // superstep 2: splitters; (start, count) of each receiver's piece to the receiver; the
            // edges of the buckets this process receives from every other process
            Arrays.sort(allSamples);
            int rho = p / 2;
            for (int j = 1; j < p; j++) splitters[j - 1] = allSamples[j * p + rho - 1];
            splitAtSplitters(m);
            recvCtrl[2 * s] = ctrl[2 * s];
            recvCtrl[2 * s + 1] = ctrl[2 * s + 1];
            coll.alltoall(ctrlSlot, recvCtrlSlot, 16);
            int first = s == 0 ? 0 : bucket(splitters[s - 1]), last = s == p - 1 ? buckets - 1 : bucket(splitters[s]);
            for (int k = 0; k < p; k++) {
                int at = k * (buckets + 1) + first, count = last - first + 2;
                if (k == s) System.arraycopy(edge, first, recvEdge, at, count);
                else ctx.get(k, edgeSlot, 4L * first, recvEdgeSlot, 4L * at, 4L * count);
            }
            ctx.sync();
            if (p == 1) { // the block is the whole output, its buckets where the scatter left them
                System.arraycopy(edge, 0, outEdge, 0, buckets + 1);
                sortBuckets(bucketed, buckets);
                result = bucketed;
                outLength = m;
                return;
            }
            // superstep 3 (and alltoallv's own): the pieces, one run per sender in the receive array
            long total = 0;
            for (int k = 0; k < p; k++) {
                sendOffsets[k] = 8 * ctrl[2 * k];
                sendCounts[k] = 8 * ctrl[2 * k + 1];
                recvOffsets[k] = 8 * total;
                recvCounts[k] = 8 * recvCtrl[2 * k + 1];
                total += recvCtrl[2 * k + 1];
            }
            if (total > recv.length) grow(total);
            coll.alltoallv(dataSlot, sendCounts, sendOffsets, recvSlot, recvCounts, recvOffsets);
            ctx.sync();
            // each bucket from the p runs, sorted into the output
            int at = 0;
            for (int b = first; b <= last; b++) {
                outEdge[b - first] = at;
                int runs = 0;
                for (int k = 0; k < p; k++) {
                    int e = k * (buckets + 1) + b;
                    int start = (int) recvCtrl[2 * k], end = start + (int) recvCtrl[2 * k + 1];
                    int from = Math.max(recvEdge[e], start), to = Math.min(recvEdge[e + 1], end);
                    if (to <= from) continue;
                    runLo[runs] = (int) (recvOffsets[k] / 8) + from - start;
                    runHi[runs++] = (int) (recvOffsets[k] / 8) + to - start;
                }
                at = sortInto(recv, runs, out, at);
            }
            outEdge[last - first + 1] = at;
            result = out;
            outLength = at;
        }

        /** @return the bucket of v: its top {@link #bits} bits, sign flipped (so buckets are in signed order) */
        private int bucket(long v) { return bits == 0 ? 0 : (int) (v >>> shift) ^ (buckets >> 1); }

        /**
         * Distributes the input into {@link #bucketed} by a counting and a scattering pass, in
         * bucket order, each bucket's values in their input order; sets {@link #edge}.
         */
        private void distribute() {
            int m = input.length;
            int[] e = edge;
            e[buckets] = m;
            if (bits == 0) return; // one bucket: bucketed is a copy of the input
            int[] c = cursor;
            Arrays.fill(c, 0);
            int sh = shift, half = buckets >> 1;
            long[] from = input, to = bucketed;
            for (int i = 0; i < m; i++) c[(int) (from[i] >>> sh) ^ half]++;
            int sum = 0;
            for (int b = 0; b < buckets; b++) {
                int count = c[b];
                e[b] = sum;
                c[b] = sum;
                sum += count;
            }
            for (int i = 0; i < m; i++) {
                long v = from[i];
                to[c[(int) (v >>> sh) ^ half]++] = v;
            }
        }

        /**
         * The p regular samples: the values of ranks j·m/p (j &lt; p) of this process's block, as
         * if it were sorted. Each bucket that holds a rank is split aside into its parts
         * ({@link #split}), and the part that holds the rank is sorted (the block itself stays as
         * it was: sorted pieces would make {@code Arrays.sort} at the receiver merge runs, which
         * allocates).
         */
        private void pickSamples(int m) {
            int b = 0, split = -1, sorted = -1, part = 0;
            for (int j = 0; j < p; j++) {
                if (m == 0) {
                    samples[j] = Long.MAX_VALUE;
                    continue;
                }
                int r = (int) ((long) j * m / p);
                while (edge[b + 1] <= r) b++;
                if (b != split) {
                    int size = edge[b + 1] - edge[b];
                    if (size > scratch.length) scratch = new long[size];
                    runLo[0] = edge[b];
                    runHi[0] = edge[b + 1];
                    split(bucketed, 1);
                    split = b;
                    sorted = -1;
                    part = 0;
                }
                int at = r - edge[b];
                while (partEnd[part] <= at) part++;
                if (part != sorted) {
                    Arrays.sort(scratch, part == 0 ? 0 : partEnd[part - 1], partEnd[part]);
                    sorted = part;
                }
                samples[j] = scratch[at];
            }
        }

        /**
         * Cuts the block into the p receivers' pieces: piece k holds the values in
         * (splitter k−1, splitter k]. A splitter's bucket is partitioned in place around it (the
         * part of the bucket after an earlier splitter in the same bucket); sets {@link #ctrl}.
         */
        private void splitAtSplitters(int m) {
            int start = 0, prevBucket = -1;
            for (int k = 0; k < p; k++) {
                int end;
                if (k == p - 1) end = m;
                else {
                    int b = bucket(splitters[k]);
                    end = partition(bucketed, b == prevBucket ? start : edge[b], edge[b + 1], splitters[k]);
                    prevBucket = b;
                }
                ctrl[2 * k] = start;
                ctrl[2 * k + 1] = end - start;
                start = end;
            }
        }

        /**
         * Reorders {@code a[lo, hi)} so that the values ≤ key come first.
         *
         * @return the index of the first value above key (hi if none)
         */
        static int partition(long[] a, int lo, int hi, long key) {
            int i = lo, j = hi - 1;
            while (true) {
                while (i <= j && a[i] <= key) i++;
                while (i <= j && a[j] > key) j--;
                if (i >= j) return i;
                long t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }

        /** Sorts the first {@code count} buckets of {@code a} in place, bounded by {@link #outEdge}. */
        private void sortBuckets(long[] a, int count) {
            for (int b = 0; b < count; b++) {
                runLo[0] = outEdge[b];
                runHi[0] = outEdge[b + 1];
                sortInto(a, 1, a, outEdge[b]);
            }
        }

        /**
         * Sorts the values of one bucket, in the ranges {@code [runLo[j], runHi[j])} of
         * {@code a} for j &lt; runs, into {@code to} from {@code at} (which may be the one range
         * itself, in place), while they sit in cache: {@link #split}s them into
         * {@link #scratch}, sorts each part by {@code Arrays.sort} and copies them to place.
         * {@code Arrays.sort} sorts fewer than 44 longs by insertion, which the JIT replaces by a
         * vectorised sort where the CPU has one (x86 with AVX-512, as the benchmark machine), and
         * larger ranges by partitioning steps; parts of 24-48 values sorted the buckets about
         * twice as fast as one {@code Arrays.sort} per bucket, with the vectorised sort or
         * without (docs/performance.md). A bucket larger than the scratch array (only so with
         * values that share more than the bucket's bits) is copied to place and sorted there.
         *
         * @return the end of the bucket in {@code to}
         */
        private int sortInto(long[] a, int runs, long[] to, int at) {
            int size = 0;
            for (int j = 0; j < runs; j++) size += runHi[j] - runLo[j];
            if (size < 2 * PART || size > scratch.length) {
                int end = at;
                for (int j = 0; j < runs; j++) {
                    System.arraycopy(a, runLo[j], to, end, runHi[j] - runLo[j]);
                    end += runHi[j] - runLo[j];
                }
                Arrays.sort(to, at, end);
                return end;
            }
            int parts = split(a, runs);
            int from = 0;
            for (int j = 0; j < parts; j++) {
                Arrays.sort(scratch, from, partEnd[j]);
                from = partEnd[j];
            }
            System.arraycopy(scratch, 0, to, at, size);
            return at + size;
        }

        /**
         * Distributes the values of one bucket in the ranges {@code [runLo[j], runHi[j])} of
         * {@code a}, j &lt; runs, by their next k bits (below the bucket's) into {@link #scratch}
         * (which must hold them), in value order: {@value #PART}
         * to twice as many values per part on average (more in a bucket of more than
         * 2^{@value #MAX_PART_BITS} parts' worth), one part if there are fewer than twice
         * {@value #PART}. Values that share these bits too (few keys, or a narrow range) land in
         * one part.
         *
         * @return the number of parts; part j ends at {@code partEnd[j]} in the scratch array
         */
        private int split(long[] a, int runs) {
            int size = 0;
            for (int j = 0; j < runs; j++) size += runHi[j] - runLo[j];
            int k = size < 2 * PART ? 0 : Math.min(MAX_PART_BITS, 31 - Integer.numberOfLeadingZeros(size / PART));
            int parts = 1 << k, sh = shift - k, mask = parts - 1;
            int[] c = partEnd;
            long[] to = scratch;
            Arrays.fill(c, 0, parts, 0);
            // the sign bit flipped: for one bucket (b = 0) it is among the k bits
            for (int j = 0; j < runs; j++) {
                for (int i = runLo[j], hi = runHi[j]; i < hi; i++) c[(int) ((a[i] ^ Long.MIN_VALUE) >>> sh) & mask]++;
            }
            int sum = 0;
            for (int j = 0; j < parts; j++) {
                int count = c[j];
                c[j] = sum;
                sum += count;
            }
            for (int j = 0; j < runs; j++) {
                for (int i = runLo[j], hi = runHi[j]; i < hi; i++) {
                    long v = a[i];
                    to[c[(int) ((v ^ Long.MIN_VALUE) >>> sh) & mask]++] = v;
                }
            }
            return parts;
        }

        private void grow(long total) {
            if (total > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("SampleSort at pid " + s + ": " + total
                        + " values land on one process; they do not fit in an array");
            }
            ctx.deregister(recvSlot);
            recv = new long[(int) total];
            out = new long[(int) total];
            recvSlot = ctx.registerLocal(MemorySegment.ofArray(recv));
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
            ctx.deregister(edgeSlot);
            ctx.deregister(recvEdgeSlot);
            ctx.deregister(samplesSlot);
            ctx.deregister(allSamplesSlot);
            ctx.deregister(ctrlSlot);
            ctx.deregister(recvCtrlSlot);
            ctx.deregister(checkMineSlot);
            ctx.deregister(checkAllSlot);
            ctx.deregister(recvSlot);
        }
    }
}
