package org.lpf4j.engine.threads;

import org.lpf4j.FatalException;
import org.lpf4j.engine.threads.group.Barrier;
import org.lpf4j.engine.threads.group.GroupFailure;
import org.lpf4j.engine.threads.group.Participants;
import org.lpf4j.engine.threads.group.ProcessLedger;
import org.lpf4j.engine.threads.group.ProcessThreads;
import org.lpf4j.engine.threads.group.RequestQueue;
import org.lpf4j.engine.threads.group.SuperstepBarrier;
import org.lpf4j.engine.threads.group.ThreadsPolicy;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared state of one SPMD section of the threads engine: its processes' contexts and
 * threads, the superstep barrier, and the failure state.
 *
 * <p>Failure: the first process that throws, or that returns while another waits in a sync, or a
 * request that cannot be executed, fails the team. From then on every sync of every process of
 * the team throws {@link FatalException}, waiting processes are woken at once, and the call that
 * started the section throws a {@code FatalException} carrying the first cause.
 *
 * <p>No silent wait: a process waiting in a sync learns, each time it wakes from parking, why the
 * round can never complete ({@link #abandonment}) — a process that returned (named, with its sync
 * count), a hook member that has not arrived by the hook timeout (the missing pids), or, with a
 * sync timeout, the pids that have not entered the sync it waits in. The failure state and the
 * exit bookkeeping are the thread group's {@link GroupFailure} and {@link ProcessLedger}, shared with the
 * hybrid engine's node.
 *
 * <p>A team started by {@code rehook} knows its parent: a wait in either can never complete
 * when the processes disagree about being inside the rehook (one syncs the parent while another
 * waits in the child, one returns or throws instead of calling rehook), and both sides detect
 * that instead of hanging.
 */
final class Team implements Participants {
    private static final AtomicInteger IDS = new AtomicInteger();

    final int id = IDS.incrementAndGet();
    final int p;
    final ThreadsSettings settings;
    private final ThreadsPolicy policy;
    final SuperstepBarrier barrier;
    final ThreadsContext[] members;
    /**
     * outboxes[parity · p + pid]: the requests pid queued in supersteps of that parity. Written
     * by pid when it replaces a queue (rarely), read by every process during syncs.
     */
    final RequestQueue.Outbox[] outboxes;
    /** The processes' threads, and who left their SPMD function after how many rounds. */
    private final ProcessLedger ledger;
    private final GroupFailure failure;
    /** Processes that have started their SPMD function in this team. */
    private final AtomicInteger entered = new AtomicInteger();
    /** For a rehook's team: the team of the processes that called rehook; otherwise null. */
    private final Team parent;
    /**
     * Per pid: the barrier rounds it had completed when it entered a rehook, or Long.MAX_VALUE
     * while it is not inside one (it then takes part in no round of this team).
     */
    private final java.util.concurrent.atomic.AtomicLongArray rehookedAfter;
    /** The teams of successive {@code rehook} calls, shared by all processes. */
    final Rounds rehooks;
    /** For a hook's team: System.nanoTime() after which missing members fail it; else 0. */
    private final long arrivalDeadline;
    /** Nanoseconds a process waits in a sync for missing ones before failing the team; 0: forever. */
    private final long syncTimeoutNanos;
    /** With a sync timeout: per pid, the syncs it has entered (else null, and sync skips the store). */
    final java.util.concurrent.atomic.AtomicLongArray syncsEntered;
    /** With a sync timeout: per pid (written by its own thread), the round it waits in and since when. */
    private final long[] waitRound, waitSince;

    Team(int p, ThreadsSettings settings) {
        this(p, null, settings, false);
    }

    /**
     * @param hook whether the team's members arrive by {@code hook} (they get the hook timeout)
     */
    Team(int p, Team parent, ThreadsSettings settings, boolean hook) {
        if (p > Barrier.MAX_PARTIES) {
            throw new IllegalArgumentException("the threads engine runs at most " + Barrier.MAX_PARTIES
                    + " processes in one section, not " + p);
        }
        this.p = p;
        this.parent = parent;
        this.settings = settings;
        this.policy = ThreadsPolicy.forProcesses(p, settings.spin(), settings.yield(), settings.spread());
        this.barrier = SuperstepBarrier.create(this, p, settings.barrier());
        this.ledger = new ProcessLedger(p, barrier);
        this.failure = new GroupFailure(barrier::wakeAll);
        this.members = new ThreadsContext[p];
        this.outboxes = new RequestQueue.Outbox[2 * p];
        this.rehookedAfter = new java.util.concurrent.atomic.AtomicLongArray(p);
        for (int i = 0; i < p; i++) rehookedAfter.set(i, Long.MAX_VALUE);
        this.rehooks = new Rounds(p, this, settings);
        this.arrivalDeadline = hook && settings.hookTimeoutMillis() > 0
                ? (System.nanoTime() + settings.hookTimeoutMillis() * 1_000_000L) | 1 : 0;
        this.syncTimeoutNanos = settings.syncTimeoutMillis() * 1_000_000L;
        this.syncsEntered = syncTimeoutNanos > 0 ? new java.util.concurrent.atomic.AtomicLongArray(p) : null;
        this.waitRound = syncTimeoutNanos > 0 ? new long[p] : null;
        this.waitSince = syncTimeoutNanos > 0 ? new long[p] : null;
    }

    @Override public ThreadsPolicy policy() { return policy; }

    @Override public Thread thread(int pid) { return ledger.thread(pid); }

    ProcessLedger ledger() { return ledger; }

    boolean failed() { return failure.failed(); }

    /** @return the team's failure state (a context keeps it: its sync reads it without going through the team) */
    GroupFailure failure() { return failure; }

    /**
     * Puts the team into the failure state (the first reason wins) and wakes every waiter.
     *
     * @param reason what happened
     * @param cause  the exception behind it, or {@code null}
     */
    @Override
    public void fail(String reason, Throwable cause) { failure.fail(reason, cause); }

    /** The exception a process gets from a sync or collective call of a failed team. */
    @Override
    public FatalException fatal(int pid) { return failure.followOn("pid " + pid + " of " + p); }

    /** @return the exception the call that started this section throws, or {@code null} */
    FatalException outcome(String call) {
        String left = leftRunning == null ? "" : "; " + leftRunning + " still ran its SPMD function " + settings.syncTimeoutMillis()
                + " ms (" + ThreadsParameters.SYNC_TIMEOUT.key() + ") after that: interrupted and left running";
        return failure.outcome((reason, cause) -> new FatalException(call + " failed: " + reason + left, cause));
    }

    /** The processes an exec stopped waiting for (its caller's thread only), or null. */
    private String leftRunning;

    /**
     * For an exec with a sync timeout: once the section has failed, its processes that still run
     * (stuck outside lpf4j) are waited for as long again, then interrupted and left running, so
     * that exec returns (its {@link #outcome} says so); without a timeout every process is waited for.
     */
    ProcessThreads.Stragglers stragglers() {
        if (syncTimeoutNanos <= 0) return null;
        return new ProcessThreads.Stragglers() {
            @Override
            public long graceNanos() { return failed() ? syncTimeoutNanos : -1; }

            @Override
            public void leftRunning(int pid, Thread thread) {
                String who = "pid " + pid + " (thread " + thread.getName() + ")";
                leftRunning = leftRunning == null ? who : leftRunning + ", " + who;
            }
        };
    }

    /**
     * Why a process waiting in barrier round {@code round} of this team can never be released,
     * or {@code null} while it still may be. Allocates only when it returns a reason. A process
     * that left after completing {@code round} does not count: it took part.
     */
    @Override
    public String abandonment(int pid, long round) {
        // A failed team's syncs throw on entry: whoever has not entered this round never will.
        String failed = failure.reason();
        if (failed != null && !barrier.allEntered(round)) return failed;
        int early = ledger.leftBefore(round);
        if (early >= 0) {
            return "pid " + early + " returned from its SPMD function after " + members[early].superstep() + " syncs while pid "
                    + pid + " waits in sync " + (members[pid].superstep() + 1) + " (unequal numbers of syncs)";
        }
        String late = missingMembers();
        if (late != null) return late;
        if (syncTimeoutNanos > 0) {
            String stuck = syncTimeout(pid, round);
            if (stuck != null) return stuck;
        }
        for (int q = 0; q < p; q++) {
            if (rehookedAfter.get(q) < round) {
                return "pid " + pid + " synchronises while pid " + q + " is inside rehook (rehook is collective)";
            }
        }
        return parent == null ? null : parentAbandonment(pid);
    }

    /** Marks {@code pid} as inside a rehook (it takes part in no round of this team meanwhile). */
    void enterRehook(int pid) { rehookedAfter.set(pid, barrier.completedRounds(pid)); }

    /** Marks {@code pid} as back from its rehook; called before its exit from the child is visible. */
    void leaveRehook(int pid) { rehookedAfter.set(pid, Long.MAX_VALUE); }

    /** For a rehook's team: the reason the parent's processes cannot all take part, or null. */
    private String parentAbandonment(int pid) {
        if (parent.failed()) return "the section that called rehook failed: " + parent.failure.reason();
        // A process of the calling section that entered a sync instead of rehook has entered a
        // round beyond the ones this process (inside the rehook) completed.
        boolean parentSyncs = parent.barrier.enteredBeyond(parent.barrier.completedRounds(pid));
        if (parent.ledger.exited() > 0 || parentSyncs) {
            return "pid " + pid + " is inside rehook while another process of the calling section "
                    + (parentSyncs ? "called sync" : "returned from its SPMD function")
                    + " instead (rehook is collective)";
        }
        return null;
    }

    /**
     * For a hook's team past its arrival deadline with members missing: the reason naming them;
     * otherwise null.
     */
    private String missingMembers() {
        if (arrivalDeadline == 0 || entered.get() >= p || System.nanoTime() - arrivalDeadline < 0) return null;
        java.util.List<Integer> missing = new java.util.ArrayList<>();
        for (int q = 0; q < p; q++) if (members[q] == null) missing.add(q);
        if (missing.isEmpty()) return null;
        return "hook: pid" + (missing.size() > 1 ? "s " : " ") + joined(missing) + " of " + p + " did not arrive within "
                + settings.hookTimeoutMillis() + " ms (" + ThreadsParameters.HOOK_TIMEOUT.key() + ")";
    }

    /** The sync-timeout reason for {@code pid} waiting in {@code round}, or null (still in time). */
    private String syncTimeout(int pid, long round) {
        long now = System.nanoTime();
        if (waitRound[pid] != round) {
            waitRound[pid] = round;
            waitSince[pid] = now;
            return null;
        }
        if (now - waitSince[pid] < syncTimeoutNanos) return null;
        long mine = syncsEntered.get(pid);
        java.util.List<Integer> missing = new java.util.ArrayList<>();
        for (int q = 0; q < p; q++) if (syncsEntered.get(q) < mine) missing.add(q);
        if (missing.isEmpty()) return null;
        return "pid" + (missing.size() > 1 ? "s " : " ") + joined(missing) + " of " + p + " did not reach sync " + mine
                + " within " + settings.syncTimeoutMillis() + " ms while pid " + pid + " waits there ("
                + ThreadsParameters.SYNC_TIMEOUT.key() + ")";
    }

    private static String joined(java.util.List<Integer> pids) {
        return pids.size() == 1 ? pids.getFirst().toString() : pids.toString();
    }

    /** Records that {@code pid} enters its sync number {@code n} (only with a sync timeout). */
    void entersSync(int pid, long n) {
        if (syncsEntered != null) syncsEntered.setRelease(pid, n);
    }

    /** Records that {@code pid} has left its SPMD function, with {@code thrown} if it threw. */
    void exit(int pid, Throwable thrown) {
        if (thrown != null) failure.processThrew("pid " + pid, thrown);
        ledger.exit(pid);
    }

    /** Called by each process before it runs its SPMD function in this team. */
    void enter() { entered.incrementAndGet(); }

    /**
     * Waits until every process has left its SPMD function (the end of a hook or rehook), or the
     * team has failed and every process that entered it has left (a process that never enters,
     * because it failed or returned in the calling section, is not waited for). Parks between
     * checks; an interrupt does not end the wait but is kept for the caller.
     */
    void awaitAllExited(int pid) {
        ledger.awaitAllExited(() -> {
            if (!failed()) {
                String late = missingMembers();
                if (late != null) fail(late, null);
            }
            if (parent != null && !failed()) {
                String why = parentAbandonment(pid);
                // Read the count again: a process that completed this team can have returned in
                // the parent since the loop condition was read; only a real absence counts.
                if (why != null && ledger.exited() < p) fail(why, null);
            }
            return failed() && ledger.exited() == entered.get();
        });
    }
}
