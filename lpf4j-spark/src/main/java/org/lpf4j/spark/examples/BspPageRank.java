package org.lpf4j.spark.examples;

import org.apache.spark.util.LongAccumulator;
import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.cr.Checkpoints;
import org.lpf4j.spark.PartitionProgram;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * PageRank of a graph given as an RDD of {@link Arc}s, as GraphX's {@code PageRank.run(graph,
 * iterations, resetProb)} defines it, inside one {@link org.lpf4j.spark.BspStage}: every vertex
 * starts at 1, each iteration sets {@code r(v) = resetProb + (1 − resetProb)·Σ_{u→v} r(u)/outdeg(u)}
 * over all edges (repeated edges and self-loops count), and the ranks are finally scaled to sum to
 * the number of vertices. The vertices are the edges' endpoints.
 *
 * <p><b>Distribution.</b> Vertex v belongs to process {@code hash(v) mod p}. Set-up (three
 * all-to-alls): each edge moves to the owner of its source; each process tells every owner the
 * distinct targets it will send contributions to, in a fixed order, and learns where in the
 * owner's receive array they go. <b>One iteration = one superstep:</b> each process sums its
 * edges' contributions per target into a send array, puts the part for process q into q's
 * receive array (one put per process pair, doubles only, no ids), syncs, and adds up what it
 * received into its owned vertices' ranks. h ≤ (distinct remote targets)·8 bytes per process;
 * local work O(edges/p + vertices/p); nothing allocated per iteration.
 * The set-up's all-to-alls are {@link AllToAll}'s (the collectives' alltoallv); the iterations
 * do not call alltoallv, whose own superstep would learn again, every iteration, the receive
 * offsets that the set-up learned once: the iterations' exchange is alltoallv's data superstep
 * alone.
 *
 * <p>With checkpoints ({@code BspStage.checkpoints}) the ranks and the iteration survive: a
 * retried stage resumes after the last complete checkpoint. {@code resumedAt}, if given, adds the
 * iteration pid 0 started from; {@code loopNanos} the time pid 0 spent in the iterations.
 */
public final class BspPageRank implements PartitionProgram<Arc, VertexRank> {
    private static final long serialVersionUID = 1L;
    private final int iterations;
    private final double resetProb;
    private final long paceMillis;
    private final LongAccumulator resumedAt, loopNanos;

    /**
     * @param iterations the iterations, ≥ 0
     * @param resetProb  the reset probability (GraphX's default is 0.15)
     * @param paceMillis a sleep added to every iteration (0: none), for tests that need a long run
     * @param resumedAt  where pid 0 resumed, added up over successful attempts (may be null)
     * @param loopNanos  pid 0's time in the iterations (may be null)
     */
    public BspPageRank(int iterations, double resetProb, long paceMillis, LongAccumulator resumedAt, LongAccumulator loopNanos) {
        if (iterations < 0) throw new IllegalArgumentException("BspPageRank: iterations " + iterations + " < 0");
        this.iterations = iterations;
        this.resetProb = resetProb;
        this.paceMillis = paceMillis;
        this.resumedAt = resumedAt;
        this.loopNanos = loopNanos;
    }

    static int owner(long vertex, int p) {
        long h = vertex * 0x9E3779B97F4A7C15L;
        return (int) Long.remainderUnsigned(h ^ (h >>> 29), p);
    }

    @Override
    public Iterator<VertexRank> run(Context ctx, Iterator<Arc> partition) throws Exception {
        int p = ctx.nprocs(), me = ctx.pid();
        // own: the send and receive arrays' slots, and the iterations' puts (p at the origin, p at
        // the target); the exchange's collectives and the checkpoints declare theirs
        Capacity.of(2, 2L * p).plus(AllToAll.needs(p)).plus(Checkpoints.needs(p)).reserve(ctx);
        try (AllToAll exchange = new AllToAll(ctx)) {
            ctx.sync();
            return run(ctx, exchange, partition);
        }
    }

    private Iterator<VertexRank> run(Context ctx, AllToAll exchange, Iterator<Arc> partition) throws Exception {
        int p = ctx.nprocs(), me = ctx.pid();

        // 1. Every edge to the owner of its source.
        LongList[] bySourceOwner = new LongList[p];
        for (int q = 0; q < p; q++) bySourceOwner[q] = new LongList();
        while (partition.hasNext()) {
            Arc a = partition.next();
            LongList l = bySourceOwner[owner(a.source(), p)];
            l.add(a.source());
            l.add(a.target());
        }
        long[][] outgoing = new long[p][];
        for (int q = 0; q < p; q++) outgoing[q] = bySourceOwner[q].toArray();
        long[][] mineIn = exchange.exchange(outgoing);
        int edges = 0;
        for (long[] part : mineIn) edges += part.length / 2;
        long[] src = new long[edges], dst = new long[edges];
        int e = 0;
        for (long[] part : mineIn) {
            for (int i = 0; i < part.length; i += 2, e++) {
                src[e] = part[i];
                dst[e] = part[i + 1];
            }
        }

        // 2. The distinct targets per owner, in ascending order: what the sends carry, and where.
        long[][] targets = new long[p][];
        {
            LongList[] t = new LongList[p];
            for (int q = 0; q < p; q++) t[q] = new LongList();
            for (int i = 0; i < edges; i++) t[owner(dst[i], p)].add(dst[i]);
            for (int q = 0; q < p; q++) targets[q] = distinct(t[q].toArray());
        }
        long[] sendBase = new long[p + 1];
        for (int q = 0; q < p; q++) sendBase[q + 1] = sendBase[q] + targets[q].length;
        int[] sendIndex = new int[edges];
        for (int i = 0; i < edges; i++) {
            int q = owner(dst[i], p);
            sendIndex[i] = (int) (sendBase[q] + Arrays.binarySearch(targets[q], dst[i]));
        }
        long[][] targetsIn = exchange.exchange(targets);

        // 3. My vertices: the sources of my edges and the targets others send me.
        LongList all = new LongList();
        for (long s : src) all.add(s);
        for (long[] part : targetsIn) for (long v : part) all.add(v);
        long[] owned = distinct(all.toArray());
        int n = owned.length;
        int[] sourceIndex = new int[edges];
        double[] outDegree = new double[n];
        for (int i = 0; i < edges; i++) {
            sourceIndex[i] = Arrays.binarySearch(owned, src[i]);
            outDegree[sourceIndex[i]]++;
        }
        long[] receiveBase = new long[p + 1];
        for (int s = 0; s < p; s++) receiveBase[s + 1] = receiveBase[s] + targetsIn[s].length;
        int[] receiveIndex = new int[(int) receiveBase[p]];
        for (int s = 0, k = 0; s < p; s++) for (long v : targetsIn[s]) receiveIndex[k++] = Arrays.binarySearch(owned, v);
        // Tell every sender where its part goes in my receive array.
        long[][] offsets = new long[p][];
        for (int s = 0; s < p; s++) offsets[s] = new long[]{receiveBase[s]};
        long[][] whereMine = exchange.exchange(offsets);

        // Heap arrays, registered as heap segments: the loops below run on plain arrays.
        double[] rank = new double[n], send = new double[(int) sendBase[p]], receive = new double[(int) receiveBase[p]];
        Arrays.fill(rank, 1.0);
        Memslot sendSlot = ctx.registerLocal(MemorySegment.ofArray(send));
        Memslot receiveSlot = ctx.registerGlobal(MemorySegment.ofArray(receive));
        Step step = new Step(sendIndex, sourceIndex, outDegree, receiveIndex, resetProb);
        long started;
        try (Checkpoints cr = Checkpoints.init(ctx, "BspPageRank " + iterations + " " + resetProb + " over " + p)) {
            cr.protect("ranks", MemorySegment.ofArray(rank));
            cr.resume();
            long first = cr.iteration();
            if (me == 0 && resumedAt != null) resumedAt.add(first);
            started = System.nanoTime();
            for (long t = first; t < iterations; t = cr.checkpoint()) {
                step.scatter(rank, send);
                for (int q = 0; q < p; q++) {
                    long length = sendBase[q + 1] - sendBase[q];
                    if (length > 0) ctx.put(sendSlot, 8 * sendBase[q], q, receiveSlot, 8 * whereMine[q][0], 8 * length);
                }
                ctx.sync();
                step.gather(receive, rank);
                if (paceMillis > 0) Thread.sleep(paceMillis);
            }
        }
        if (me == 0 && loopNanos != null) loopNanos.add(System.nanoTime() - started);
        ctx.deregister(receiveSlot);
        ctx.deregister(sendSlot);

        // 4. Scale the ranks to sum to the number of vertices (sums added in pid order).
        double sum = 0;
        for (double r : rank) sum += r;
        long[][] sums = new long[p][];
        for (int q = 0; q < p; q++) sums[q] = new long[]{Double.doubleToRawLongBits(sum), n};
        long[][] allSums = exchange.exchange(sums);
        double total = 0;
        long vertices = 0;
        for (long[] s : allSums) {
            total += Double.longBitsToDouble(s[0]);
            vertices += s[1];
        }
        double scale = vertices / total;
        List<VertexRank> out = new ArrayList<>(n);
        for (int v = 0; v < n; v++) out.add(new VertexRank(owned[v], rank[v] * scale));
        return out.iterator();
    }

    /**
     * One iteration's local work, in methods of their own so that the JIT compiles them as such
     * (inlined into the one long method above, the edge loop ran about ten times slower).
     */
    private record Step(int[] sendIndex, int[] sourceIndex, double[] outDegree, int[] receiveIndex, double resetProb,
                        double[] weight) {
        Step(int[] sendIndex, int[] sourceIndex, double[] outDegree, int[] receiveIndex, double resetProb) {
            this(sendIndex, sourceIndex, outDegree, receiveIndex, resetProb, new double[outDegree.length]);
        }

        /** Each edge adds its source's rank / out-degree to its target's entry of the send array. */
        void scatter(double[] rank, double[] send) {
            for (int v = 0; v < rank.length; v++) weight[v] = outDegree[v] == 0 ? 0 : rank[v] / outDegree[v];
            Arrays.fill(send, 0);
            for (int i = 0; i < sendIndex.length; i++) send[sendIndex[i]] += weight[sourceIndex[i]];
        }

        /** The new ranks from what the sync delivered: resetProb + (1 − resetProb) · the sum of contributions. */
        void gather(double[] receive, double[] rank) {
            Arrays.fill(rank, 0);
            for (int k = 0; k < receiveIndex.length; k++) rank[receiveIndex[k]] += receive[k];
            for (int v = 0; v < rank.length; v++) rank[v] = resetProb + (1 - resetProb) * rank[v];
        }
    }

    /** @return the distinct values of {@code a}, ascending (sorts {@code a}) */
    static long[] distinct(long[] a) {
        Arrays.sort(a);
        int k = 0;
        for (int i = 0; i < a.length; i++) if (i == 0 || a[i] != a[i - 1]) a[k++] = a[i];
        return Arrays.copyOf(a, k);
    }

    /** A growable array of longs. */
    static final class LongList {
        private long[] values = new long[16];
        private int size;

        void add(long v) {
            if (size == values.length) values = Arrays.copyOf(values, size * 2);
            values[size++] = v;
        }

        long[] toArray() { return Arrays.copyOf(values, size); }
    }
}
