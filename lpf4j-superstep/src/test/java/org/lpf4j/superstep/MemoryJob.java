package org.lpf4j.superstep;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * What the ranks of one in-memory section share: the mailboxes of {@link MemoryTransport}, its
 * collectives, and the faults injected into it. Every rank is a thread of this JVM; one lock
 * (this object) orders everything, and every wait is bounded by {@link #deadlineNanos}, so a
 * missing peer is named, never waited for forever.
 *
 * <p>Faults: {@link #vanish} (the rank is gone, as a JVM that died: every wait of the others
 * fails at once, naming it), {@link #failOnceAfter} (a transport call throws an error once, as one
 * that cannot allocate a buffer) and a rank that stops calling (frozen: the others' waits fail when
 * the deadline passes, naming the ranks that did not arrive).
 */
final class MemoryJob {
    final int ranks, machine;
    final long deadlineNanos;
    /** Chooses the permitted reorderings; one seed makes a run repeatable up to thread scheduling. */
    private final SplittableRandom random;
    /** Unmatched sends, per receiver, channel and sender: a send is read from the sender's memory when matched. */
    private final ArrayDeque<Send>[] mail;
    /** Small messages (causes), per receiver and sender, copied when sent. */
    private final ArrayDeque<byte[]>[] messages;
    /** The collectives under way, by sequence number (every rank calls them in the same order). */
    private final Map<Long, Collective> collectives = new HashMap<>();
    /** Child sections (rehook, probe), by the sequence number every rank gives them alike. */
    private final Map<Integer, MemoryJob> children = new HashMap<>();
    private final boolean[] vanished;
    /** Per rank: why it vanished, if it said ({@link #vanish(int, String)}). */
    private final String[] why;
    /** Per rank: the transport calls left before it vanishes (-1: never). */
    private final long[] vanishAfter;

    /** One send waiting for its receive: where its bytes are, and whose batch it completes. */
    record Send(MemorySegment from, long offset, long bytes, MemoryTransport sender, int batch) {}

    /** One allreduce or all-to-all: every rank's contribution, then what the last to leave clears. */
    static final class Collective {
        final long[][] in;
        int arrived, left;

        Collective(int ranks) { in = new long[ranks][]; }
    }

    MemoryJob(int ranks, long deadlineMillis, long seed) { this(ranks, ranks, deadlineMillis, seed); }

    /** @param machine the processors the job's processes share for their nested sections */
    @SuppressWarnings({"unchecked", "rawtypes"})
    MemoryJob(int ranks, int machine, long deadlineMillis, long seed) {
        this.ranks = ranks;
        this.machine = machine;
        this.deadlineNanos = deadlineMillis * 1_000_000L;
        this.random = new SplittableRandom(seed);
        this.mail = new ArrayDeque[ranks * Transport.Channel.values().length * ranks];
        for (int i = 0; i < mail.length; i++) mail[i] = new ArrayDeque<>();
        this.messages = new ArrayDeque[ranks * ranks];
        for (int i = 0; i < messages.length; i++) messages[i] = new ArrayDeque<>();
        this.vanished = new boolean[ranks];
        this.why = new String[ranks];
        this.vanishAfter = new long[ranks];
        java.util.Arrays.fill(vanishAfter, -1);
        this.failAfter = new long[ranks];
        java.util.Arrays.fill(failAfter, -1);
    }

    /** @return the transport of {@code rank} */
    MemoryTransport transport(int rank) { return new MemoryTransport(this, rank); }

    /** @return the child section number {@code seq} of this one (made by the first rank that asks) */
    synchronized MemoryJob child(int seq) {
        return children.computeIfAbsent(seq, s -> new MemoryJob(ranks, machine, deadlineNanos / 1_000_000L, random.nextLong()));
    }

    // ---- faults ----

    /** Rank {@code rank} is gone: its own calls and every wait of the others fail from now on. */
    synchronized void vanish(int rank) { vanish(rank, null); }

    /** {@link #vanish(int)}, saying why (the others' failures carry it: {@link Transport#leave}). */
    synchronized void vanish(int rank, String why) {
        vanished[rank] = true;
        if (this.why[rank] == null) this.why[rank] = why;
        notifyAll();
    }

    /** Rank {@code rank} vanishes when it makes its {@code calls}-th transport call from now on (mid-superstep). */
    synchronized void vanishAfter(int rank, long calls) { vanishAfter[rank] = calls; }

    /** Per rank: the transport calls left before one throws {@link #failure} once (-1: never). */
    private final long[] failAfter;
    private Error failure;

    /**
     * Rank {@code rank}'s {@code calls}-th transport call from now on throws {@code error}, once, as
     * a transport that cannot allocate a buffer does; the rank stays in the job.
     */
    synchronized void failOnceAfter(int rank, long calls, Error error) {
        failAfter[rank] = calls;
        failure = error;
    }

    /** Counts a call of {@code rank}; throws if the rank is gone, or the error of {@link #failOnceAfter}. */
    synchronized void call(int rank) {
        if (failAfter[rank] == 0) {
            failAfter[rank] = -1;
            throw failure;
        }
        if (failAfter[rank] > 0) failAfter[rank]--;
        if (vanishAfter[rank] == 0) vanish(rank);
        if (vanishAfter[rank] > 0) vanishAfter[rank]--;
        if (vanished[rank]) throw new Transport.Stopped("pid " + rank + " has vanished (fault injected)");
    }

    /** Throws naming the first rank that vanished, if any. */
    private void checkAlive(String what) {
        for (int r = 0; r < ranks; r++) {
            if (vanished[r]) {
                throw new Transport.Stopped("pid " + r + " vanished while others waited (" + what + ")" + (why[r] != null ? ": " + why[r] : ""));
            }
        }
    }

    /** Waits on this object until notified or {@code start} plus the deadline, failing as the deadline says. */
    private void await(long start, String what) {
        checkAlive(what);
        long left = deadlineNanos - (System.nanoTime() - start);
        if (left <= 0) throw new Transport.Stopped(what + ": not there within " + deadlineNanos / 1_000_000 + " ms");
        try {
            wait(Math.max(1, left / 1_000_000), 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Transport.Stopped("interrupted while waiting (" + what + ")");
        }
        checkAlive(what);
    }

    // ---- point-to-point ----

    private int box(int to, Transport.Channel channel, int from) { return (to * Transport.Channel.values().length + channel.ordinal()) * ranks + from; }

    synchronized void post(int to, Transport.Channel channel, int from, Send s) {
        mail[box(to, channel, from)].addLast(s);
        notifyAll();
    }

    /**
     * Matches a receive, copying the send's bytes from the sender's memory.
     *
     * @return whether a send was there to match
     */
    synchronized boolean match(int to, Transport.Channel channel, int from, MemorySegment into, long offset, long bytes) {
        checkAlive("a receive from pid " + from);
        Send s = mail[box(to, channel, from)].pollFirst();
        if (s == null) return false;
        if (s.bytes > bytes) {
            throw new IllegalStateException("pid " + to + ": a message of " + s.bytes + " bytes on " + channel + " from pid " + from
                    + " for a receive of " + bytes);
        }
        MemorySegment.copy(s.from, s.offset, into, offset, s.bytes);
        s.sender.matched(s.batch);
        notifyAll();
        return true;
    }

    /** Waits until something changes (a send posted, a send matched, a rank vanished), within the deadline from {@code start}. */
    synchronized void waitForChange(long start, String what) { await(start, what); }

    /** @return a random index below {@code n}: the permitted reorderings */
    synchronized int pick(int n) { return random.nextInt(n); }

    // ---- small messages ----

    synchronized void message(int to, int from, byte[] bytes) {
        messages[to * ranks + from].addLast(bytes.clone());
        notifyAll();
    }

    synchronized byte[] takeMessage(int to, int from) {
        long start = System.nanoTime();
        ArrayDeque<byte[]> q = messages[to * ranks + from];
        while (q.isEmpty()) await(start, "a message from pid " + from);
        return q.pollFirst();
    }

    // ---- collectives ----

    /**
     * Rank {@code rank}'s part of collective number {@code seq}: contributes {@code mine} and
     * waits for every rank's.
     *
     * @return every rank's contribution, by rank
     */
    synchronized long[][] collective(long seq, int rank, long[] mine, String what) {
        Collective c = collectives.computeIfAbsent(seq, s -> new Collective(ranks));
        c.in[rank] = mine;
        c.arrived++;
        notifyAll();
        long start = System.nanoTime();
        while (c.arrived < ranks) {
            try {
                await(start, what);
            } catch (Transport.Stopped e) {
                StringBuilder missing = new StringBuilder();
                for (int r = 0; r < ranks; r++) if (c.in[r] == null) missing.append(missing.isEmpty() ? "" : ", ").append(r);
                throw new Transport.Stopped(e.getMessage() + " (pid " + missing + " did not arrive)");
            }
        }
        long[][] all = c.in.clone();
        if (++c.left == ranks) collectives.remove(seq);
        return all;
    }
}
