package org.lpf4j.spi.boot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The job side of the boot framework, independent of the transport: holds every rank's committed
 * data, matches fences by their participant description, and answers each participant with the
 * collected data or a failure naming the missing ranks. {@link LocalJob} drives it in one JVM; the
 * {@code tcp} module's coordinator drives it from network connections.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>A fence is identified by its participant description ("all" or the rank list) and its
 *       instance: the how-many-th fence of that description the rank enters (fences are
 *       collective, so every participant counts the same). It completes when every participant
 *       arrived; then each receives the committed data of all participants if collect-data was
 *       asked. A rank arriving late at an instance that failed already gets that failure at once.</li>
 *   <li>Participants that disagree on collect-data fail the fence. Two ranks each waiting in a
 *       fence the other is part of, described differently, would wait forever: both fences fail,
 *       naming the descriptions.</li>
 *   <li>A rank that is {@linkplain #leave gone} (died or closed) fails every pending and later
 *       fence it is part of, naming it.</li>
 *   <li>A fence not complete by the earliest participant's timeout (counted from its arrival)
 *       fails, naming who did not arrive.</li>
 * </ul>
 * Thread-safe (one monitor); callbacks run under it and must not block. Costs per fence: O(p)
 * bookkeeping plus, with collect-data, a snapshot of each participant's store.
 */
public final class FenceCoordinator implements AutoCloseable {

    /** Where the coordinator answers one rank. Called under the coordinator's lock: must not block. */
    public interface Participant {
        /**
         * @param seq  the rank's fence number
         * @param data owner rank → key → value (shared by all participants: read only); empty
         *             without collect-data
         */
        void completed(long seq, Map<Integer, Map<String, byte[]>> data);

        /**
         * @param seq     the rank's fence number
         * @param failure why, naming the missing ranks
         */
        void failed(long seq, BootException failure);
    }

    private final String name;
    private final int size;
    private final Map<Integer, Map<String, byte[]>> committed = new HashMap<>();
    private final String[] gone;
    /** Ranks gone so far: while none is, an arrival checks no participant list. */
    private int goneCount;
    private final Participant[] participants;
    private final Map<String, Pending> pending = new LinkedHashMap<>();
    /** Instance key → failure message and missing ranks, for late arrivals. */
    private final Map<String, BootException> failed = new HashMap<>();
    private final ScheduledThreadPoolExecutor timer;

    private final class Pending {
        final String id;
        final String description;
        final int[] ranks;
        final boolean collect;
        final int firstRank;
        final Map<Integer, Long> arrived = new LinkedHashMap<>();
        long deadlineNanos = Long.MAX_VALUE;
        ScheduledFuture<?> timeout;

        Pending(String id, String description, int[] ranks, boolean collect, int firstRank) {
            this.id = id;
            this.description = description;
            this.ranks = ranks;
            this.collect = collect;
            this.firstRank = firstRank;
        }

        boolean includes(int r) { return Arrays.binarySearch(ranks, r) >= 0; }

        int[] notArrived() {
            return Arrays.stream(ranks).filter(r -> !arrived.containsKey(r)).toArray();
        }

        String what() {
            return "fence over " + (description.equals("all") ? "all " + size + " ranks" : "ranks " + description)
                    + (collect ? " with collect-data" : "");
        }
    }

    /**
     * @param name a name for messages and the timer thread, e.g. {@code "tcp job at 127.0.0.1:4000"}
     * @param size the number of ranks
     */
    public FenceCoordinator(String name, int size) {
        if (size < 1) throw new IllegalArgumentException("FenceCoordinator(" + name + "): size " + size);
        this.name = name;
        this.size = size;
        this.gone = new String[size];
        this.participants = new Participant[size];
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "lpf-boot-timer " + name);
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /** @return the number of ranks */
    public int size() { return size; }

    /**
     * Registers where a rank is answered.
     *
     * @param rank a rank
     * @param p    its answers' destination
     * @throws IllegalStateException if the rank joined already or is gone
     */
    public synchronized void join(int rank, Participant p) {
        check(rank);
        if (participants[rank] != null || gone[rank] != null) {
            throw new IllegalStateException(name + ": rank " + rank + " joined already" + (gone[rank] != null ? " and is gone (" + gone[rank] + ")" : ""));
        }
        participants[rank] = p;
    }

    /**
     * @param rank a rank
     * @return whether it joined (and may have left since)
     */
    public synchronized boolean joined(int rank) { check(rank); return participants[rank] != null || gone[rank] != null; }

    /**
     * Adds a committed batch to a rank's store.
     *
     * @param rank  the owner
     * @param batch key → value, taken over (not modified afterwards by the caller)
     */
    public synchronized void commit(int rank, Map<String, byte[]> batch) {
        check(rank);
        committed.computeIfAbsent(rank, k -> new HashMap<>()).putAll(batch);
        notifyAll();
    }

    /**
     * Looks a committed value up, waiting up to {@code timeoutNanos} for its owner to commit it.
     *
     * @param rank         the owner
     * @param key          the key
     * @param timeoutNanos how long to wait; 0 answers at once
     * @return the value or {@code null}
     */
    public synchronized byte[] value(int rank, String key, long timeoutNanos) {
        check(rank);
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            Map<String, byte[]> m = committed.get(rank);
            byte[] v = m == null ? null : m.get(key);
            long left = deadline - System.nanoTime();
            if (v != null || left <= 0 || gone[rank] != null) return v;
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    /**
     * A rank enters a fence.
     *
     * @param rank        the rank
     * @param seq         its fence number (echoed in the answer)
     * @param instance    the how-many-th fence of this description the rank enters, from 1
     * @param ranks       the participants as the rank described them (ascending), or {@code null} for all
     * @param collect     whether it asks for collect-data
     * @param timeoutMillis its timeout
     */
    public synchronized void arrive(int rank, long seq, long instance, int[] ranks, boolean collect, long timeoutMillis) {
        check(rank);
        String description = ranks == null ? "all" : Arrays.toString(ranks);
        String id = description + "#" + instance;
        BootException earlier = failed.get(id);
        if (earlier != null) {
            Participant p = participants[rank];
            if (p != null) p.failed(seq, new BootException(earlier.getMessage() + " (rank " + rank + " arrived after the failure)",
                    earlier.missingRanks(), null));
            return;
        }
        Pending existing = pending.get(id);
        if (existing == null) {
            // Built and checked once per fence (its id names the ranks): a fence of p ranks costs O(p), not O(p²).
            int[] set = ranks;
            if (set == null) {
                set = new int[size];
                for (int i = 0; i < size; i++) set[i] = i;
            }
            for (int r : set) check(r);
            existing = new Pending(id, description, set, collect, rank);
            pending.put(id, existing);
        }
        Pending f = existing;
        if (f.collect != collect) {
            f.arrived.put(rank, seq);
            fail(f, new int[0], f.what() + " described differently: rank " + f.firstRank + " asked collectData="
                    + f.collect + ", rank " + rank + " collectData=" + collect);
            return;
        }
        if (f.arrived.putIfAbsent(rank, seq) != null) {
            BootException e = new BootException(name + ": rank " + rank + " entered " + f.what() + " twice");
            Participant p = participants[rank];
            if (p != null) p.failed(seq, e);
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        if (deadline < f.deadlineNanos) {
            f.deadlineNanos = deadline;
            if (f.timeout != null) f.timeout.cancel(false);
            f.timeout = timer.schedule(() -> timedOut(f), timeoutMillis, TimeUnit.MILLISECONDS);
        }
        if (goneCount > 0) {
            int[] dead = Arrays.stream(f.ranks).filter(r -> gone[r] != null && !f.arrived.containsKey(r)).toArray();
            if (dead.length > 0) {
                fail(f, dead, f.what() + " failed: " + describeGone(dead));
                return;
            }
        }
        if (crossed(f, rank)) return;
        if (f.arrived.size() == f.ranks.length) complete(f);
    }

    /** Two ranks each waiting in a fence that includes the other, described differently: a certain deadlock. */
    private boolean crossed(Pending f, int rank) {
        for (Pending other : new ArrayList<>(pending.values())) {
            if (other == f || !other.includes(rank)) continue;
            for (int waiting : other.arrived.keySet()) {
                if (f.includes(waiting) && !f.arrived.containsKey(waiting)) {
                    String why = "rank " + rank + " entered a fence over " + f.description + " while rank " + waiting
                            + " waits in one over " + other.description
                            + ": every participant must describe a fence the same way";
                    fail(other, new int[0], other.what() + " failed: " + why);
                    fail(f, new int[0], f.what() + " failed: " + why);
                    return true;
                }
            }
        }
        return false;
    }

    private void complete(Pending f) {
        pending.remove(f.id);
        if (f.timeout != null) f.timeout.cancel(false);
        Map<Integer, Map<String, byte[]>> data;
        if (f.collect) {
            data = new HashMap<>();
            for (int r : f.ranks) {
                Map<String, byte[]> m = committed.get(r);
                if (m != null) data.put(r, Map.copyOf(m));
            }
        } else {
            data = Map.of();
        }
        for (Map.Entry<Integer, Long> a : f.arrived.entrySet()) {
            Participant p = participants[a.getKey()];
            if (p != null && gone[a.getKey()] == null) p.completed(a.getValue(), data);
        }
    }

    private void fail(Pending f, int[] missing, String message) {
        pending.remove(f.id);
        failed.put(f.id, new BootException(name + ": " + message, missing, null));
        if (f.timeout != null) f.timeout.cancel(false);
        for (Map.Entry<Integer, Long> a : f.arrived.entrySet()) {
            Participant p = participants[a.getKey()];
            if (p != null && gone[a.getKey()] == null) {
                p.failed(a.getValue(), new BootException(name + ": " + message, missing, null));
            }
        }
    }

    private synchronized void timedOut(Pending f) {
        if (pending.get(f.id) != f) return;
        int[] missing = f.notArrived();
        fail(f, missing, f.what() + " timed out: ranks " + Arrays.toString(missing) + " did not arrive in time"
                + (Arrays.stream(missing).anyMatch(r -> gone[r] != null) ? " (" + describeGone(missing) + ")" : ""));
    }

    private String describeGone(int[] ranks) {
        List<String> parts = new ArrayList<>();
        for (int r : ranks) if (gone[r] != null) parts.add("rank " + r + " " + gone[r]);
        return String.join(", ", parts);
    }

    /**
     * A rank left the job: it closed its session or its process died. Every pending fence it is
     * part of and has not entered fails now, naming it; so does every later one.
     *
     * @param rank the rank
     * @param why  e.g. {@code "closed its session"} or {@code "lost its connection (process died?)"}
     */
    public synchronized void leave(int rank, String why) {
        check(rank);
        if (gone[rank] != null) return;
        gone[rank] = why;
        goneCount++;
        participants[rank] = null;
        notifyAll();
        for (Pending f : new ArrayList<>(pending.values())) {
            if (f.includes(rank) && !f.arrived.containsKey(rank)) {
                fail(f, new int[]{rank}, f.what() + " failed: rank " + rank + " " + why);
            }
        }
    }

    /** @return whether every rank that joined has left */
    public synchronized boolean allLeft() {
        for (int r = 0; r < size; r++) if (gone[r] == null) return false;
        return true;
    }

    private void check(int rank) {
        if (rank < 0 || rank >= size) throw new IllegalArgumentException(name + ": rank " + rank + " not in a job of " + size);
    }

    /** Stops the timer thread; pending fences are left unanswered (their clients time out). */
    @Override
    public void close() { timer.shutdownNow(); }

    @Override
    public String toString() { return name; }
}
