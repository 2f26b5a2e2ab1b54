package org.lpf4j.spark.examples;

import org.lpf4j.Capacity;
import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.coll.Collectives;
import org.lpf4j.coll.Ops;
import org.lpf4j.cr.Checkpoints;
import org.lpf4j.spark.PartitionProgram;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * Connected components of a graph given as an RDD of {@link Arc}s (taken as undirected, as
 * GraphX's {@code connectedComponents} takes them) inside one {@link org.lpf4j.spark.BspStage}:
 * every vertex ends labelled with the smallest vertex id of its component. The vertices are the
 * arcs' endpoints.
 *
 * <p><b>Distribution.</b> Vertex v belongs to process {@code hash(v) mod p}. Set-up: every arc
 * (u, v) goes to the owner of u as u's neighbour v and to the owner of v as v's neighbour u, by
 * one variable-sized all-to-all; each process builds its vertices' adjacency lists.
 *
 * <p><b>One iteration</b> (label propagation): every vertex whose label changed in the last
 * iteration (all of them in the first) sends (neighbour, label) to each neighbour's owner; each
 * process lowers its vertices' labels to the smallest label received. It ends when no process
 * has anything to send. Every exchange is the collectives library's: an {@code alltoall} of the
 * parts' lengths and an {@code allreduce} of the total in one superstep, then {@code alltoallv}
 * of the parts (its own superstep for the parts' offsets, then the data); the labels are
 * checkpointed at every iteration's end ({@link Checkpoints}: a retried stage resumes with every
 * vertex counted as changed, which gives the same labels). No hand-made exchange, and the
 * program's capacities are reserved by one call for itself, the collectives and the checkpoints:
 * {@link #needs(int)}.
 *
 * <p>Cost: iterations = the largest component's diameter + 1 (+ 1 to see that nothing changed);
 * each 3 supersteps of the exchange plus the checkpoint point's one; h ≤ 16 bytes per adjacency
 * entry of a changed vertex; local work O(adjacency/p · log(vertices/p)) per iteration.
 */
public final class BspConnectedComponents implements PartitionProgram<Arc, VertexComponent> {
    private static final long serialVersionUID = 1L;
    /** The program's own register slots: the lengths sent and received, the total, the send and the receive array. */
    private static final int OWN_SLOTS = 5;

    /** Creates the program. */
    public BspConnectedComponents() {}

    /**
     * Everything the program reserves at p processes, in one value: its own slots (it queues no
     * request of its own), one collectives object with two calls per superstep (the lengths'
     * alltoall and the total's allreduce) and a checkpoints object.
     *
     * @param p the processes
     * @return the capacity
     */
    public static Capacity needs(int p) {
        return Capacity.of(OWN_SLOTS, 0).plus(Collectives.needs(p, 2, 8, 8)).plus(Checkpoints.needs(p));
    }

    @Override
    public Iterator<VertexComponent> run(Context ctx, Iterator<Arc> partition) {
        int p = ctx.nprocs();
        needs(p).reserve(ctx);
        try (Collectives coll = Collectives.init(ctx, 2, 8, 8); Exchange exchange = new Exchange(ctx, coll)) {
            ctx.sync(); // the collectives object and the exchange's slots usable
            return components(ctx, exchange, partition);
        }
    }

    private static Iterator<VertexComponent> components(Context ctx, Exchange exchange, Iterator<Arc> partition) {
        int p = ctx.nprocs();
        // 1. Each arc to the owners of both ends, as (vertex, neighbour) pairs.
        BspPageRank.LongList arcs = new BspPageRank.LongList();
        partition.forEachRemaining(a -> {
            arcs.add(a.source());
            arcs.add(a.target());
        });
        long[] ends = arcs.toArray();
        long[] length = new long[p];
        for (long v : ends) length[BspPageRank.owner(v, p)] += 2;
        long[] send = new long[(int) Math.max(1, Arrays.stream(length).sum())]; // a registered array is never empty
        int[] at = starts(length);
        for (int i = 0; i < ends.length; i += 2) {
            long u = ends[i], v = ends[i + 1];
            int a = at[BspPageRank.owner(u, p)];
            send[a] = u;
            send[a + 1] = v;
            at[BspPageRank.owner(u, p)] += 2;
            int b = at[BspPageRank.owner(v, p)];
            send[b] = v;
            send[b + 1] = u;
            at[BspPageRank.owner(v, p)] += 2;
        }
        long[] pairs = exchange.run(send, length);
        if (pairs == null) return List.<VertexComponent>of().iterator(); // no arcs anywhere

        // 2. My vertices (sorted) and their neighbours (CSR).
        long[] mine = new long[pairs.length / 2];
        for (int i = 0; i < mine.length; i++) mine[i] = pairs[2 * i];
        long[] vertex = BspPageRank.distinct(mine);
        int n = vertex.length;
        int[] first = new int[n + 1];
        for (int i = 0; i < pairs.length; i += 2) first[Arrays.binarySearch(vertex, pairs[i]) + 1]++;
        for (int v = 0; v < n; v++) first[v + 1] += first[v];
        long[] neighbour = new long[pairs.length / 2];
        int[] fill = Arrays.copyOf(first, n);
        for (int i = 0; i < pairs.length; i += 2) neighbour[fill[Arrays.binarySearch(vertex, pairs[i])]++] = pairs[i + 1];

        // 3. Label propagation, checkpointed.
        long[] label = vertex.clone();
        boolean[] changed = new boolean[n];
        Arrays.fill(changed, true);
        try (Checkpoints cr = Checkpoints.init(ctx, "BspConnectedComponents over " + p)) {
            cr.protect("labels", MemorySegment.ofArray(label));
            cr.resume(); // labels restored; every vertex counts as changed, which is safe
            while (true) {
                Arrays.fill(length, 0);
                for (int v = 0; v < n; v++) {
                    if (!changed[v]) continue;
                    for (int e = first[v]; e < first[v + 1]; e++) length[BspPageRank.owner(neighbour[e], p)] += 2;
                }
                long total = Arrays.stream(length).sum();
                if (send.length < total) send = new long[(int) total];
                at = starts(length);
                for (int v = 0; v < n; v++) {
                    if (!changed[v]) continue;
                    changed[v] = false;
                    for (int e = first[v]; e < first[v + 1]; e++) {
                        int k = at[BspPageRank.owner(neighbour[e], p)];
                        send[k] = neighbour[e];
                        send[k + 1] = label[v];
                        at[BspPageRank.owner(neighbour[e], p)] += 2;
                    }
                }
                long[] received = exchange.run(send, length);
                if (received == null) break; // nobody changed: every label is final
                for (int i = 0; i < received.length; i += 2) {
                    int v = Arrays.binarySearch(vertex, received[i]);
                    if (received[i + 1] < label[v]) {
                        label[v] = received[i + 1];
                        changed[v] = true;
                    }
                }
                cr.checkpoint();
            }
        }
        List<VertexComponent> out = new ArrayList<>(n);
        for (int v = 0; v < n; v++) out.add(new VertexComponent(vertex[v], label[v]));
        return out.iterator();
    }

    /** @return where part q starts in an array of the parts one after another, q in order */
    private static int[] starts(long[] length) {
        int[] at = new int[length.length];
        for (int q = 1; q < length.length; q++) at[q] = at[q - 1] + (int) length[q - 1];
        return at;
    }

    /**
     * The program's exchange of variable-sized parts, all through the collectives: alltoall of
     * the lengths with allreduce of their sum (one superstep), then alltoallv of the parts (two).
     * Collective; made once (its slots usable after the caller's next sync).
     */
    static final class Exchange implements AutoCloseable {
        private final Context ctx;
        private final Collectives coll;
        private final long[] lengths, received, total = new long[1];
        private final long[] sendCounts, sendOffsets, recvCounts, recvOffsets;
        private final Memslot lengthsSlot, receivedSlot, totalSlot;

        Exchange(Context ctx, Collectives coll) {
            this.ctx = ctx;
            this.coll = coll;
            int p = ctx.nprocs();
            lengths = new long[p];
            received = new long[p];
            sendCounts = new long[p];
            sendOffsets = new long[p];
            recvCounts = new long[p];
            recvOffsets = new long[p];
            lengthsSlot = ctx.registerGlobal(MemorySegment.ofArray(lengths));
            receivedSlot = ctx.registerGlobal(MemorySegment.ofArray(received));
            totalSlot = ctx.registerGlobal(MemorySegment.ofArray(total));
        }

        /**
         * @param send   the parts, one after another in process order
         * @param length the longs of the part for process q, at q
         * @return the parts received, one after another in sender order, or null if no process
         *         sent anything (then every process returns null)
         */
        long[] run(long[] send, long[] length) {
            int p = ctx.nprocs(), me = ctx.pid();
            long sum = 0;
            for (int q = 0; q < p; q++) {
                lengths[q] = length[q];
                sendOffsets[q] = 8 * sum;
                sendCounts[q] = 8 * length[q];
                sum += length[q];
            }
            total[0] = sum;
            received[me] = length[me];
            Memslot sendSlot = ctx.registerGlobal(MemorySegment.ofArray(send));
            coll.alltoall(lengthsSlot, receivedSlot, 8);
            coll.allreduce(MemorySegment.ofArray(total), totalSlot, 8, Ops.LONG_SUM);
            ctx.sync(); // the lengths, the total, and the send array's registration
            long[] in = null;
            if (total[0] > 0) {
                long incoming = 0;
                for (int s = 0; s < p; s++) {
                    recvOffsets[s] = 8 * incoming;
                    recvCounts[s] = 8 * received[s];
                    incoming += received[s];
                }
                in = new long[(int) Math.max(1, incoming)];
                Memslot inSlot = ctx.registerLocal(MemorySegment.ofArray(in));
                coll.alltoallv(sendSlot, sendCounts, sendOffsets, inSlot, recvCounts, recvOffsets);
                ctx.sync();
                ctx.deregister(inSlot);
                if (incoming == 0) in = new long[0];
            }
            ctx.deregister(sendSlot);
            return in;
        }

        @Override
        public void close() {
            ctx.deregister(totalSlot);
            ctx.deregister(receivedSlot);
            ctx.deregister(lengthsSlot);
        }
    }
}
