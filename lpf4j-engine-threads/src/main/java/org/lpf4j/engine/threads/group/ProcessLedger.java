package org.lpf4j.engine.threads.group;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * For engines only: which thread runs each process of a group of {@link Participants}, and who
 * has left its SPMD function after how many barrier rounds. With it a waiter in a sync can tell
 * that a round can never complete because a process returned early (unequal numbers of syncs),
 * and name that process.
 *
 * <p>Rules:
 * <ul>
 *   <li>A process that left after completing {@code r} rounds took part in rounds 1..r only: a
 *       waiter in a later round is abandoned by it ({@link #leftBefore}).</li>
 *   <li>Of the processes that left too early, the one that completed the fewest rounds is named
 *       (the first to record that count, if several did).</li>
 *   <li>Every {@link #exit} wakes every waiter of the barrier (waiters in a sync must notice the
 *       departure, a waiter in {@link #awaitAllExited} the count).</li>
 * </ul>
 *
 * <p>Cost: {@link #thread}, {@link #exited} and {@link #leftBefore} are one or two volatile reads
 * and allocate nothing (the barriers call them while waiting). {@link #exit} takes this object's
 * lock once per process and section.
 */
public final class ProcessLedger {
    private final int p;
    private final SuperstepBarrier barrier;
    private final AtomicReferenceArray<Thread> threads;
    private final AtomicInteger exited = new AtomicInteger();
    /** The fewest rounds any process had completed when it left; written under the lock, after {@link #earliestLeaver}. */
    private volatile long leastRoundsAtExit = Long.MAX_VALUE;
    /** The process that left with {@link #leastRoundsAtExit} rounds, or -1. */
    private volatile int earliestLeaver = -1;

    /**
     * @param p       the group's processes
     * @param barrier the group's barrier: counts each process's completed rounds, wakes the waiters
     */
    public ProcessLedger(int p, SuperstepBarrier barrier) {
        this.p = p;
        this.barrier = barrier;
        this.threads = new AtomicReferenceArray<>(p);
    }

    /** Called by each process on its own thread before it runs its SPMD function. */
    public void attach(int pid) { threads.set(pid, Thread.currentThread()); }

    /** @return the thread running {@code pid}, or {@code null} before it attached */
    public Thread thread(int pid) { return threads.get(pid); }

    /**
     * Records that {@code pid} has left its SPMD function (with the rounds it completed) and wakes
     * every waiter. Called once per process, on its thread, after its failure (if any) is recorded.
     */
    public void exit(int pid) {
        long rounds = barrier.completedRounds(pid);
        synchronized (this) {
            if (rounds < leastRoundsAtExit) {
                earliestLeaver = pid;
                leastRoundsAtExit = rounds;
            }
        }
        exited.incrementAndGet();
        barrier.wakeAll();
    }

    /** @return how many processes have left their SPMD function */
    public int exited() { return exited.get(); }

    /**
     * @param round a barrier round (the first is 1)
     * @return the process that left its SPMD function having completed fewer than {@code round}
     *         rounds (of several, the one that completed the fewest), or -1 if none did
     */
    public int leftBefore(long round) {
        return leastRoundsAtExit < round ? earliestLeaver : -1;
    }

    /**
     * Waits until every process has left its SPMD function or {@code enough} says to stop; parks
     * between checks (an {@link #exit} unparks attached waiters at once; the park times out after
     * 200 µs). {@code enough} runs on this thread before each park and may fail the group. An
     * interrupt does not end the wait but is kept for the caller.
     *
     * @param enough e.g. "the group failed and every process that entered it has left"
     */
    public void awaitAllExited(BooleanSupplier enough) {
        boolean interrupted = false;
        while (exited.get() < p && !enough.getAsBoolean()) {
            LockSupport.parkNanos(this, 200_000L);
            if (Thread.interrupted()) interrupted = true;
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
