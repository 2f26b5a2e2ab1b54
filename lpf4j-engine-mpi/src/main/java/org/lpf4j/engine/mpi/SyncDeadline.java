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
 *       too, naming the same processes;</li>
 *   <li>a <em>leaving</em> notice (another process left a sync midway, {@link #leave}) fails this
 *       process at once, with the other's reason (its text follows on {@link MpiTags#LEFT_WHY}).</li>
 * </ul>
 * When a process has waited {@code syncTimeout} ms in one sync it sends a query to every other
 * process and collects answers (answering queries meanwhile) for {@link #GRACE_NANOS}. If every
 * process answered, all are in a sync and merely slow (a large exchange): the clock starts again.
 * Otherwise the ones that did not answer are missing: it sends the failure notice to every other
 * process and fails. Each missing process is described from its OS pid and host, exchanged once
 * per JVM over the runtime's control communicator (one {@code MPI_Alltoall}, only with the deadline
 * on; a hook's section exchanges them when it starts): on this host, state {@code T} in
 * {@code /proc/<pid>/stat} means stopped by a signal.
 *
 * <p>The start of a section is a wait too: a process stopped between two sections would leave the
 * others in {@code MPI_Comm_dup} for good. After {@link #beginJoin}, the start's collectives
 * ({@link #dup}, {@link #barrier}) and a command's send ({@link #sendBytes}) poll under the same
 * deadline, with the census over the processes that join; the message then says which call they
 * did not join. A process whose communicator was made from another ({@code around}: the runtime's
 * control communicator, or the parent section's) also answers queries there while it waits, since
 * a process that already joined the new communicator must still be seen by one that is joining; a
 * process that waits for its next command answers them too ({@link #answer}).
 *
 * <p>Once a section failed this way its collectives can never complete: {@link #expired()} tells
 * the runtime not to finalise MPI and not to run another section.
 *
 * <p>Cost with the deadline on: the nonblocking calls instead of blocking ones, one
 * {@code System.nanoTime} per poll and one {@code MPI_Iprobe} per communicator per millisecond of waiting; no
 * allocation until the deadline passes. Not thread-safe: used by the thread that syncs.
 */
final class SyncDeadline implements AutoCloseable {
    /** The tag of the deadline's messages on the section's communicator. */
    static final int TAG_ALIVE = MpiTags.ALIVE;
    /** How long a process that found its deadline passed waits for the others' answers. */
    static final long GRACE_NANOS = 1_000_000_000L;
    private static final long QUERY = 1, ANSWER = 2, FAILED = 3, LEFT = 4;
    /** The most bytes of a leaving process's reason that travel (an eager message in both MPI libraries). */
    private static final int WHY_BYTES = 2048;
    /** The step of a wait at a section's start ({@link #beginJoin}); a sync's is its superstep, never negative. */
    private static final long JOINING = -1;
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
    private final Facts facts;
    private final boolean[] answered;
    /** The deadline of the communicator this one's processes were made from, or null ({@link #idle} answers its queries). */
    private final SyncDeadline around;
    private long since, nextLook, step;
    /** The processes the census asks: ranks 0 .. members-1 ({@link #n}, or the ones that join a section). */
    private int members;
    /** The call the processes join ({@link #beginJoin}), or null while in a sync. */
    private String joining;
    /** Where {@link #dup} has MPI write the new handle (kept in {@link #PENDING_HANDLES} if the dup never completed). */
    private MemorySegment newHandle;
    /** The handles of duplicates that did not complete: MPI may write them later, so they stay allocated for the JVM's life. */
    private static final List<MemorySegment> PENDING_HANDLES = java.util.Collections.synchronizedList(new ArrayList<>());

    /** Every process's OS pid and host name, for the report of a missing one; index = rank. */
    record Facts(long[] osPids, String[] hosts) {
        /** @return the facts of ranks 0 .. n-1 (a communicator made of the first n ranks, in their order) */
        Facts first(int n) {
            return n == osPids.length ? this : new Facts(java.util.Arrays.copyOf(osPids, n), java.util.Arrays.copyOf(hosts, n));
        }
    }

    /**
     * Collective over {@code comm} when {@code millis > 0} and the section has more than one process.
     *
     * @param millis the deadline ({@link MpiParameters#SYNC_TIMEOUT}), 0 for none
     * @param polls  whether waits poll without a deadline too ({@link MpiSettings#polls})
     * @param around the deadline of a communicator whose ranks 0 .. n-1 are this one's (its facts are
     *               taken instead of exchanged, and its queries answered while waiting), or null
     */
    SyncDeadline(Mpi mpi, long comm, int me, int n, int millis, boolean polls, SyncDeadline around) {
        this.mpi = mpi;
        this.comm = comm;
        this.me = me;
        this.n = n;
        this.members = n;
        this.millis = n > 1 ? millis : 0;
        this.nanos = this.millis * 1_000_000L;
        this.polls = nanos != 0 || (polls && n > 1);
        this.around = around != null && around.on() ? around : null;
        if (nanos == 0) {
            one = this.polls ? new RequestArray(mpi, 1) : null;
            width = 0;
            facts = null;
            answered = null;
            return;
        }
        one = new RequestArray(mpi, 1);
        width = 24 + 8 * ((n + 63) / 64);
        message.atLeast(2L * width);
        answered = new boolean[n];
        facts = this.around != null ? this.around.facts.first(n) : exchangeFacts();
    }

    /** Every process learns every other's OS pid and host name (for the report of a missing one). */
    private Facts exchangeFacts() {
        long[] osPids = new long[n];
        String[] hosts = new String[n];
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
        return new Facts(osPids, hosts);
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
        members = n;
        joining = null;
        since = System.nanoTime();
        nextLook = since + LOOK_NANOS;
    }

    /**
     * Starts the clock of a section's start: until the next {@link #begin}, the census asks ranks
     * 0 .. {@code members}-1 and a failure says they did not join {@code call}.
     *
     * @param call e.g. {@code "exec(p=4)"}
     */
    void beginJoin(int members, String call) {
        if (nanos == 0) return;
        this.step = JOINING;
        this.members = members;
        this.joining = call;
        since = System.nanoTime();
        nextLook = since + LOOK_NANOS;
    }

    /**
     * Collective over {@code base}, a communicator of ranks 0 .. members-1 of this one's (this one,
     * or one made from it): {@code MPI_Comm_dup}, or with the deadline on {@code MPI_Comm_idup}
     * polled under it (after {@link #beginJoin}).
     *
     * @return the duplicate
     */
    long dup(long base) {
        if (nanos == 0) return mpi.dup(base);
        if (newHandle == null) newHandle = Arena.ofAuto().allocate(8, 8);
        mpi.idup(base, newHandle, one.next());
        try {
            await(one);
        } catch (Passed e) {
            PENDING_HANDLES.add(newHandle); // MPI may still write it: never freed
            throw e;
        }
        return mpi.handle(newHandle);
    }

    /** Collective: {@code MPI_Barrier} over this communicator, or with the deadline on {@code MPI_Ibarrier} polled under it. */
    void barrier() {
        if (nanos == 0) {
            mpi.barrier(comm);
            return;
        }
        mpi.ibarrier(comm, one.next());
        await(one);
    }

    /** {@code MPI_Send} of {@code count} bytes to {@code to}, or with the deadline on {@code MPI_Isend} polled under it. */
    void sendBytes(MemorySegment buf, int count, int to, int tag) {
        if (nanos == 0) {
            mpi.sendBytes(buf, count, to, tag, comm);
            return;
        }
        mpi.isendBytes(buf.address(), count, to, tag, comm, one.next());
        await(one);
    }

    /**
     * For a process that waits outside a sync (for its next command): answers the queries that
     * came, and fails on a failure notice.
     *
     * @throws Passed when another process found processes missing
     */
    void answer() {
        if (nanos != 0) lookAround(null);
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
        if (around != null) around.lookAround(null);
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
            } else if (kind == LEFT) {
                int length = (int) Math.min(WHY_BYTES, m.get(ValueLayout.JAVA_LONG, 24));
                String why;
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment text = a.allocate(Math.max(1, length));
                    mpi.recvBytes(text, length, from, MpiTags.LEFT_WHY, comm);
                    why = new String(text.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                }
                boolean[] gone = new boolean[n];
                gone[from] = true;
                throw expire(why, gone);
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
        for (int q = 0; q < members; q++) if (q != me) send(QUERY, step, null, q);
        long until = System.nanoTime() + GRACE_NANOS;
        int count;
        do {
            lookAround(answered);
            if (around != null) around.lookAround(null);
            count = 0;
            for (int q = 0; q < members; q++) if (answered[q]) count++;
            if (count == members) break;
            java.util.concurrent.locks.LockSupport.parkNanos(100_000L);
        } while (System.nanoTime() - until < 0);
        if (count == members) {
            since = System.nanoTime();
            nextLook = since + LOOK_NANOS;
            return;
        }
        boolean[] missing = new boolean[n];
        for (int q = 0; q < members; q++) missing[q] = !answered[q];
        for (int q = 0; q < members; q++) if (q != me) send(FAILED, step, missing, q);
        throw passed(missing, step, me);
    }

    /** Sends one message of the protocol (small: the MPI libraries send it eagerly, so a stopped receiver does not block it). */
    private void send(long kind, long superstep, boolean[] missing, int to) {
        mpi.sendBytes(compose(kind, superstep, missing), width, to, TAG_ALIVE, comm);
    }

    /** @return one message of the protocol in the send half of {@link #message}: kind, steps, the missing processes' bits from byte 24 */
    private MemorySegment compose(long kind, long superstep, boolean[] missing) {
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
        return m;
    }

    /**
     * This process leaves its sync midway (an error of its own after it began to send): every other
     * process's wait fails at its next look (within a millisecond) with {@code why}. Only with the
     * deadline on: without it the others wait in blocking MPI calls that nothing can end.
     *
     * @return whether the others were told
     */
    boolean leave(String why) {
        if (nanos == 0) return false;
        byte[] text = why.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(WHY_BYTES, text.length);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment bytes = a.allocate(Math.max(1, length));
            MemorySegment.copy(MemorySegment.ofArray(text), 0, bytes, 0, length);
            MemorySegment m = compose(LEFT, step, null);
            m.set(ValueLayout.JAVA_LONG, 24, length); // a leaving notice carries its reason's length where a failure has its bits
            for (int q = 0; q < n; q++) {
                if (q == me) continue;
                mpi.sendBytes(m, width, q, TAG_ALIVE, comm);
                mpi.sendBytes(bytes, length, q, MpiTags.LEFT_WHY, comm);
            }
        }
        boolean[] self = new boolean[n];
        self[me] = true;
        expire(why, self);
        return true;
    }

    /** The failure: records it for the runtime and describes every missing process. */
    private Passed passed(boolean[] missing, long superstep, int finder) {
        List<Integer> gone = new ArrayList<>();
        for (int q = 0; q < n; q++) if (missing[q]) gone.add(q);
        StringBuilder who = new StringBuilder();
        for (int i = 0; i < gone.size(); i++) who.append(i == 0 ? "" : i == gone.size() - 1 ? " and " : ", ").append(name(gone.get(i)));
        StringBuilder b = new StringBuilder();
        b.append(who).append(" of ").append(superstep == JOINING ? members : n).append(" did not ")
                .append(superstep != JOINING ? "reach sync " + superstep : "join " + (joining != null ? joining : "the start of a section"))
                .append(" within ").append(millis).append(" ms while ").append(name(finder)).append(" waited there (")
                .append(MpiParameters.SYNC_TIMEOUT.key()).append('=').append(millis).append(')');
        for (int q : gone) b.append("; ").append(name(q)).append(' ').append(state(q));
        return expire(b.toString(), missing);
    }

    /** Records the section's failure for the runtime (the first of this JVM), and tells the rank guard. */
    private Passed expire(String reason, boolean[] missing) {
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
        String where = "(process id " + facts.osPids()[q] + " on host " + facts.hosts()[q] + ")";
        if (!facts.hosts()[q].equals(RankGuard.hostName())) return where + " did not arrive within " + millis + " ms (another host: its state is unknown here)";
        char s = processState(facts.osPids()[q]);
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
