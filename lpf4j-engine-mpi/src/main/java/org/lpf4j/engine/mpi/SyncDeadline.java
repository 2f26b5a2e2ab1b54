package org.lpf4j.engine.mpi;

import org.lpf4j.superstep.NativeBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The deadline on the wait in a sync of one section ({@link MpiParameters#SYNC_TIMEOUT}), and how the
 * processes that did not arrive are found without asking them (a process stopped by a signal, or
 * stuck in an endless loop, cannot answer).
 *
 * <p>Off (0), every wait of a sync is MPI's own blocking call, as without this class, unless
 * polling is asked for ({@link MpiParameters#WAIT}): then the waits poll as below, without the deadline. On, every
 * wait is a nonblocking call ({@code MPI_Iallreduce}, {@code MPI_Ialltoall}, the exchange's
 * transfers) completed by polling {@code MPI_Testall}; at most once a millisecond the waiting
 * process also looks at the section's reserved tag {@value #TAG_ALIVE}:
 * <ul>
 *   <li>a <em>query</em> ("are you waiting in a sync?") is answered at once: an answer says
 *       "yes, in sync s";</li>
 *   <li>a <em>failure</em> notice (another process found processes missing) fails this process
 *       too, naming the same processes.</li>
 * </ul>
 * When a process has waited {@code syncTimeout} ms in one sync it sends a query to every other
 * process and collects answers (answering queries meanwhile) for {@link #GRACE_NANOS}. If every
 * process answered, all are in a sync and merely slow (a large exchange): the clock starts again.
 * Otherwise the ones that did not answer are missing: it sends the failure notice to every other
 * process and fails. Each missing process is described from its OS pid and host, exchanged when
 * the section starts (one {@code MPI_Alltoall}, only with the deadline on): on this host, state
 * {@code T} in {@code /proc/<pid>/stat} means stopped by a signal.
 *
 * <p>Once a section failed this way its collectives can never complete: {@link #expired()} tells
 * the runtime not to finalise MPI and not to run another section.
 *
 * <p>Cost with the deadline on: the nonblocking calls instead of blocking ones, one
 * {@code System.nanoTime} per poll and one {@code MPI_Iprobe} per millisecond of waiting; no
 * allocation until the deadline passes. Not thread-safe: used by the thread that syncs.
 */
final class SyncDeadline implements AutoCloseable {
    /** The tag of the deadline's messages on the section's communicator. */
    static final int TAG_ALIVE = MpiTags.ALIVE;
    /** How long a process that found its deadline passed waits for the others' answers. */
    static final long GRACE_NANOS = 1_000_000_000L;
    private static final long QUERY = 1, ANSWER = 2, FAILED = 3;
    private static final long LOOK_NANOS = 1_000_000L, SPIN_NANOS = 20_000L;
    /** Bytes per process in the start-up exchange: OS pid, host name length, host name. */
    private static final int FACTS = 128;

    /** Why a section of this JVM failed by its deadline (the first one), or null. */
    private static volatile String expired;
    /** Whether pid 0 of that section was among the missing. */
    private static volatile boolean firstMissing;
    /** Whether this process is the lowest-numbered one that arrived in that section. */
    private static volatile boolean lowestArrived;

    private final Mpi mpi;
    private final long comm;
    private final int me, n;
    private final int millis;
    private final long nanos;
    /** Whether waits poll nonblocking calls (the deadline on, or polling asked for without one). */
    private final boolean polls;
    private final RequestArray one;
    /** One message of the deadline's protocol, received at 0, sent from {@link #width}. */
    private final NativeBuffer message = new NativeBuffer();
    private final int width;
    private final long[] osPids;
    private final String[] hosts;
    private final boolean[] answered;
    private long since, nextLook, step;

    /**
     * Collective over {@code comm} when {@code millis > 0} and the section has more than one process.
     *
     * @param millis the deadline ({@link MpiParameters#SYNC_TIMEOUT}), 0 for none
     * @param polls  whether waits poll without a deadline too ({@link MpiSettings#polls})
     */
    SyncDeadline(Mpi mpi, long comm, int me, int n, int millis, boolean polls) {
        this.mpi = mpi;
        this.comm = comm;
        this.me = me;
        this.n = n;
        this.millis = n > 1 ? millis : 0;
        this.nanos = this.millis * 1_000_000L;
        this.polls = nanos != 0 || (polls && n > 1);
        if (nanos == 0) {
            one = this.polls ? new RequestArray(mpi, 1) : null;
            width = 0;
            osPids = null;
            hosts = null;
            answered = null;
            return;
        }
        one = new RequestArray(mpi, 1);
        width = 24 + 8 * ((n + 63) / 64);
        message.atLeast(2L * width);
        answered = new boolean[n];
        osPids = new long[n];
        hosts = new String[n];
        exchangeFacts();
    }

    /** Every process learns every other's OS pid and host name (for the report of a missing one). */
    private void exchangeFacts() {
        byte[] host = RankGuard.hostName().getBytes(StandardCharsets.UTF_8);
        int len = Math.min(host.length, FACTS - 12);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate((long) FACTS * n, 8), in = a.allocate((long) FACTS * n, 8);
            for (int q = 0; q < n; q++) {
                long at = (long) FACTS * q;
                out.set(ValueLayout.JAVA_LONG, at, ProcessHandle.current().pid());
                out.set(ValueLayout.JAVA_INT, at + 8, len);
                MemorySegment.copy(MemorySegment.ofArray(host), 0, out, at + 12, len);
            }
            mpi.alltoallBytes(out, in, FACTS, comm);
            for (int q = 0; q < n; q++) {
                long at = (long) FACTS * q;
                osPids[q] = in.get(ValueLayout.JAVA_LONG, at);
                int l = in.get(ValueLayout.JAVA_INT, at + 8);
                hosts[q] = new String(in.asSlice(at + 12, l).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            }
        }
    }

    /** @return whether the deadline is on */
    boolean on() { return nanos != 0; }

    /**
     * Starts the clock of a sync (or of the end of a section, which waits for the others too).
     *
     * @param superstep the sync's number (the section's superstep)
     */
    void begin(long superstep) {
        if (nanos == 0) return;
        this.step = superstep;
        since = System.nanoTime();
        nextLook = since + LOOK_NANOS;
    }

    /** {@code MPI_Allreduce}, or with the deadline on its nonblocking form, polled. */
    void allreduceLongs(long send, long recv, int count, long op) {
        if (!polls) {
            mpi.allreduceLongs(send, recv, count, op, comm);
            return;
        }
        mpi.iallreduceLongs(send, recv, count, op, comm, one.next());
        await(one);
    }

    /** {@code MPI_Alltoall} of {@code count} bytes per pair, or with the deadline on its nonblocking form, polled. */
    void alltoallBytes(long send, long recv, int count) {
        if (!polls) {
            mpi.alltoallBytes(send, recv, count, comm);
            return;
        }
        mpi.ialltoallBytes(send, recv, count, comm, one.next());
        await(one);
    }

    /** Completes every request of {@code requests}: waits in MPI with the deadline off, else polls. */
    void complete(RequestArray requests) {
        if (!polls) requests.waitAll();
        else await(requests);
    }

    private void await(RequestArray requests) {
        while (!requests.testAll()) idle();
    }

    /**
     * Called between polls of a wait (only with the deadline on): spins a little, then yields;
     * once a millisecond looks for the protocol's messages and at the deadline takes the census.
     *
     * @throws Passed when processes are found missing (here or by another process)
     */
    void idle() {
        long now = System.nanoTime();
        if (now - since < SPIN_NANOS) Thread.onSpinWait();
        else Thread.yield(); // the others may need this core (more processes than cores)
        if (nanos == 0 || now - nextLook < 0) return;
        nextLook = now + LOOK_NANOS;
        lookAround(null);
        if (now - since >= nanos) census();
    }

    /**
     * Receives the protocol's messages that have arrived: answers queries, notes answers to this
     * process's query of this sync in {@code answered} (if not null), fails on a failure notice.
     */
    private void lookAround(boolean[] answered) {
        MemorySegment m = message.atLeast(0);
        for (int from = mpi.iprobeAnySource(TAG_ALIVE, comm); from >= 0; from = mpi.iprobeAnySource(TAG_ALIVE, comm)) {
            mpi.recvBytes(m.address(), width, from, TAG_ALIVE, comm);
            long kind = m.get(ValueLayout.JAVA_LONG, 0), theirs = m.get(ValueLayout.JAVA_LONG, 8);
            if (kind == QUERY) {
                if (answered != null) answered[from] = true; // it waits too
                send(ANSWER, theirs, null, from);
            } else if (kind == ANSWER) {
                if (answered != null && m.get(ValueLayout.JAVA_LONG, 16) == step) answered[from] = true;
            } else if (kind == FAILED) {
                boolean[] missing = new boolean[n];
                for (int q = 0; q < n; q++) missing[q] = (m.get(ValueLayout.JAVA_LONG, 24 + 8L * (q >>> 6)) & (1L << q)) != 0;
                throw passed(missing, theirs, from);
            }
        }
    }

    /**
     * Asks every other process whether it waits in a sync; those that do not answer within
     * {@link #GRACE_NANOS} are missing. None missing: the clock starts again.
     */
    private void census() {
        java.util.Arrays.fill(answered, false);
        answered[me] = true;
        for (int q = 0; q < n; q++) if (q != me) send(QUERY, step, null, q);
        long until = System.nanoTime() + GRACE_NANOS;
        int count;
        do {
            lookAround(answered);
            count = 0;
            for (boolean a : answered) if (a) count++;
            if (count == n) break;
            java.util.concurrent.locks.LockSupport.parkNanos(100_000L);
        } while (System.nanoTime() - until < 0);
        if (count == n) {
            since = System.nanoTime();
            nextLook = since + LOOK_NANOS;
            return;
        }
        boolean[] missing = new boolean[n];
        for (int q = 0; q < n; q++) missing[q] = !answered[q];
        for (int q = 0; q < n; q++) if (q != me) send(FAILED, step, missing, q);
        throw passed(missing, step, me);
    }

    /** Sends one message of the protocol (small: the MPI libraries send it eagerly, so a stopped receiver does not block it). */
    private void send(long kind, long superstep, boolean[] missing, int to) {
        MemorySegment m = message.atLeast(0).asSlice(width, width);
        m.fill((byte) 0);
        m.set(ValueLayout.JAVA_LONG, 0, kind);
        m.set(ValueLayout.JAVA_LONG, 8, kind == ANSWER ? step : superstep);
        m.set(ValueLayout.JAVA_LONG, 16, superstep);
        if (missing != null) {
            for (int q = 0; q < n; q++) {
                if (missing[q]) {
                    long at = 24 + 8L * (q >>> 6);
                    m.set(ValueLayout.JAVA_LONG, at, m.get(ValueLayout.JAVA_LONG, at) | (1L << q));
                }
            }
        }
        mpi.sendBytes(m, width, to, TAG_ALIVE, comm);
    }

    /** The failure: records it for the runtime and describes every missing process. */
    private Passed passed(boolean[] missing, long superstep, int finder) {
        List<Integer> gone = new ArrayList<>();
        for (int q = 0; q < n; q++) if (missing[q]) gone.add(q);
        StringBuilder who = new StringBuilder();
        for (int i = 0; i < gone.size(); i++) who.append(i == 0 ? "" : i == gone.size() - 1 ? " and " : ", ").append(name(gone.get(i)));
        StringBuilder b = new StringBuilder();
        b.append(who).append(" of ").append(n).append(" did not reach sync ").append(superstep)
                .append(" within ").append(millis).append(" ms while ").append(name(finder)).append(" waited there (")
                .append(MpiParameters.SYNC_TIMEOUT.key()).append('=').append(millis).append(')');
        for (int q : gone) b.append("; ").append(name(q)).append(' ').append(state(q));
        String reason = b.toString();
        synchronized (SyncDeadline.class) {
            if (expired == null) {
                expired = reason;
                firstMissing = missing[0];
                int lowest = 0;
                while (lowest < n && missing[lowest]) lowest++;
                lowestArrived = lowest == me;
            }
        }
        RankGuard.deadlinePassed(); // the launcher kills the missing ranks (maybe this one too): not deaths to report
        return new Passed(reason);
    }

    private static String name(int q) { return "pid " + q; }

    /** @return what is known of missing process {@code q}: stopped by a signal, or simply late */
    private String state(int q) {
        String where = "(process id " + osPids[q] + " on host " + hosts[q] + ")";
        if (!hosts[q].equals(RankGuard.hostName())) return where + " did not arrive within " + millis + " ms (another host: its state is unknown here)";
        char s = processState(osPids[q]);
        if (s == 'T' || s == 't') {
            return where + " is stopped by a signal (state " + s + "), e.g. kill -STOP: it did not arrive within " + millis + " ms";
        }
        return where + " did not arrive within " + millis + " ms" + (s == 0 ? " (it is gone)" : " (state " + s + ")");
    }

    /** @return the state letter of process {@code pid} in {@code /proc/<pid>/stat}, or 0 if it cannot be read */
    static char processState(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            int close = stat.lastIndexOf(')');
            return close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : 0;
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    /** @return why a section of this JVM failed by its deadline, or null: then MPI can neither end cleanly nor run another section */
    static String expired() { return expired; }

    /** @return whether pid 0 of the section that failed by its deadline was missing */
    static boolean firstMissing() { return firstMissing; }

    /** @return whether this process is the lowest-numbered one that arrived in that section (it reports when pid 0 cannot) */
    static boolean lowestArrived() { return lowestArrived; }

    /** Frees the buffers (never after the deadline passed: MPI may still write into them). */
    @Override
    public void close() {
        if (one != null) one.close();
        message.close();
    }

    /** Processes did not arrive in time; the message names them. */
    static final class Passed extends org.lpf4j.superstep.Transport.Stopped {
        private static final long serialVersionUID = 1L;

        Passed(String reason) { super(reason); }
    }
}
