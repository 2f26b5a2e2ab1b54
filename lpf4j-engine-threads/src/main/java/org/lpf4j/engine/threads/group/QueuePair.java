package org.lpf4j.engine.threads.group;

/**
 * A process's two {@link RequestQueue}s, used in alternate supersteps: the queue of parity
 * {@code syncs & 1} takes this superstep's requests while peers may still read the other (last
 * superstep's) through the group's outbox table, where this pair publishes each queue's outbox at
 * {@code outboxes[parity · peers + slot]}. Engines only; used by one process's thread.
 *
 * <p>Costs: {@link #current} is an array load; {@link #ensure} copies or allocates queues (never on
 * a put, get or sync); {@link #advance} swaps in a queue grown meanwhile, else only resets the next
 * queue.
 */
public final class QueuePair {
    private final RequestQueue[] queues;
    /** A larger replacement for the other queue, swapped in when it becomes current. */
    private RequestQueue pendingOther;
    private final RequestQueue.Outbox[] outboxes;
    private final int peers, slot;

    /**
     * Makes two empty queues and publishes both.
     *
     * @param peers    the processes of the group (queue destinations, and the stride of the table)
     * @param outboxes the group's outbox table, 2 · peers entries
     * @param slot     this process's index in the group
     */
    public QueuePair(int peers, RequestQueue.Outbox[] outboxes, int slot) {
        this.peers = peers;
        this.outboxes = outboxes;
        this.slot = slot;
        this.queues = new RequestQueue[] {new RequestQueue(0, peers), new RequestQueue(0, peers)};
        publish(0);
        publish(1);
    }

    private void publish(int parity) {
        outboxes[parity * peers + slot] = queues[parity].outbox;
    }

    /** @return the queue of superstep {@code syncs} */
    public RequestQueue current(long syncs) { return queues[(int) syncs & 1]; }

    /** @return the queue of supersteps of {@code parity} */
    public RequestQueue ofParity(int parity) { return queues[parity]; }

    /**
     * Makes room for {@code n} requests: the current queue grows now, the other (which peers may
     * still read) is replaced at the next {@link #advance}. Everything is allocated before
     * anything is replaced.
     *
     * @throws OutOfMemoryError with no effect
     */
    public void ensure(int n, long syncs) {
        int current = (int) syncs & 1;
        if (n <= queues[current].capacity && n <= queues[1 - current].capacity) return;
        RequestQueue grown = n > queues[current].capacity ? queues[current].grownTo(n) : null;
        RequestQueue other = n > queues[1 - current].capacity ? new RequestQueue(n, peers) : null;
        if (grown != null) {
            queues[current] = grown;
            publish(current);
        }
        if (other != null) pendingOther = other;
    }

    /** Starts superstep {@code syncs} (the count after the sync that ended the previous one). */
    public void advance(long syncs) {
        int next = (int) syncs & 1; // its queue was last read before this sync's first barrier
        if (pendingOther != null && pendingOther.capacity > queues[next].capacity) {
            queues[next] = pendingOther;
            publish(next);
        }
        queues[next].startSuperstep(syncs);
        pendingOther = null;
    }
}
