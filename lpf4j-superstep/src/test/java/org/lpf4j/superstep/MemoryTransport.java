package org.lpf4j.superstep;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Transport} between threads of one JVM, without sockets or MPI: the protocol's test bed.
 * A send is kept as a reference to the sender's memory and read when the receiver matches it (the
 * contract lets a transport read a send's buffer at any time before its batch completes, so a
 * protocol that touched it earlier would be caught); a receive is matched in a random order among
 * those whose message is there (between one pair on one channel in posting order, as the contract
 * says; across channels and peers in any order), sometimes at once when it is posted, else when
 * its batch completes. The collectives meet in {@link MemoryJob}. Faults come from the job.
 * Allocates per call: a test transport.
 */
final class MemoryTransport implements Transport {
    private final MemoryJob job;
    private final int me;
    /** Posted receives not matched yet, per batch. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private final List<Receive>[] posted = new List[] {new ArrayList<>(), new ArrayList<>()};
    /** Transfers posted since the batch last completed, and sends of it not matched yet. */
    private final int[] outstanding = new int[2], unmatchedSends = new int[2];
    private long collectives;

    private record Receive(Channel channel, MemorySegment into, long offset, long bytes, int from, long seq) {}
    private long receives;

    MemoryTransport(MemoryJob job, int rank) {
        this.job = job;
        this.me = rank;
    }

    @Override public int rank() { return me; }

    @Override public int ranks() { return job.ranks; }

    /** Small, so that streams before the round are split into a first chunk and the rest. */
    @Override public long eagerBytes() { return 256; }

    @Override
    public void allreduce(MemorySegment buffer, int words, Reduction op) {
        job.call(me);
        long[] mine = buffer.asSlice(0, 8L * words).toArray(ValueLayout.JAVA_LONG);
        long[][] all = job.collective(collectives++, me, mine, "an allreduce");
        for (int i = 0; i < words; i++) {
            long v = op == Reduction.OR ? 0 : Long.MIN_VALUE;
            for (long[] a : all) v = op == Reduction.OR ? v | a[i] : Math.max(v, a[i]);
            buffer.setAtIndex(ValueLayout.JAVA_LONG, words + i, v);
        }
    }

    @Override
    public void alltoallLongs(MemorySegment buffer, long inAt) {
        job.call(me);
        long[][] all = job.collective(collectives++, me, buffer.asSlice(0, 8L * job.ranks).toArray(ValueLayout.JAVA_LONG), "an all-to-all");
        for (int r = 0; r < job.ranks; r++) buffer.set(ValueLayout.JAVA_LONG, inAt + 8L * r, all[r][me]);
    }

    @Override
    public void exchangeNonzero(long[] out, long[] in) {
        job.call(me);
        long[] mine = out.clone();
        mine[me] = 0;
        long[][] all = job.collective(collectives++, me, mine, "the count consensus");
        for (int r = 0; r < job.ranks; r++) if (r != me) in[r] = all[r][me];
    }

    @Override
    public void receive(int batch, Channel channel, MemorySegment into, long offset, long bytes, int rank) {
        job.call(me);
        if (!into.isNative()) throw new IllegalArgumentException("receive into heap memory: the contract says native");
        outstanding[batch]++;
        if (job.pick(2) == 0 && noEarlierFrom(rank, channel) && job.match(me, channel, rank, into, offset, bytes)) return;
        posted[batch].add(new Receive(channel, into, offset, bytes, rank, receives++));
    }

    /** Whether no receive from {@code rank} on {@code channel} is still posted (an earlier one must match first). */
    private boolean noEarlierFrom(int rank, Channel channel) {
        for (List<Receive> l : posted) for (Receive r : l) if (r.from == rank && r.channel == channel) return false;
        return true;
    }

    @Override
    public void send(int batch, Channel channel, MemorySegment from, long offset, long bytes, int rank) {
        job.call(me);
        if (!from.isNative()) throw new IllegalArgumentException("send from heap memory: the contract says native");
        outstanding[batch]++;
        synchronized (job) {
            unmatchedSends[batch]++;
        }
        job.post(rank, channel, me, new MemoryJob.Send(from, offset, bytes, this, batch));
    }

    /** The job matched a send of {@code batch} (called under the job's lock). */
    void matched(int batch) { unmatchedSends[batch]--; }

    @Override
    public void complete(int batch) {
        job.call(me);
        long start = System.nanoTime();
        List<Receive> mine = posted[batch];
        synchronized (job) { // checks and waits under the lock: no change slips in between
            while (true) {
                boolean progressed = false;
                // Match what can be matched in a random order, keeping each pair's channel in posting order:
                // every receive is tried once per pass, so a pass that matches nothing means nothing can match yet.
                List<Receive> order = new ArrayList<>(mine);
                for (int k = order.size() - 1; k > 0; k--) java.util.Collections.swap(order, k, job.pick(k + 1));
                for (Receive r : order) {
                    if (earlierIn(mine, r) || earlierIn(posted[1 - batch], r)) continue;
                    if (job.match(me, r.channel, r.from, r.into, r.offset, r.bytes)) {
                        mine.remove(r);
                        progressed = true;
                    }
                }
                if (mine.isEmpty() && unmatchedSends[batch] == 0) break;
                if (!progressed) {
                    job.waitForChange(start, mine.isEmpty() ? "the receivers of pid " + me + "'s sends"
                            : "pid " + me + "'s receive from pid " + mine.get(0).from);
                }
            }
        }
        outstanding[batch] = 0;
    }

    /** Whether {@code l} holds a receive from the same peer on the same channel posted before {@code r}. */
    private static boolean earlierIn(List<Receive> l, Receive r) {
        for (Receive o : l) if (o.from == r.from && o.channel == r.channel && o.seq < r.seq) return true;
        return false;
    }

    @Override
    public int pending() { return outstanding[EARLY] + outstanding[REST]; }

    @Override
    public void sendMessage(byte[] bytes, int rank) {
        job.call(me);
        job.message(rank, me, bytes);
    }

    @Override
    public byte[] receiveMessage(int rank) {
        job.call(me);
        return job.takeMessage(me, rank);
    }

    @Override
    public void leave(String why) { job.vanish(me, why); }

    @Override
    public void close() {}
}
