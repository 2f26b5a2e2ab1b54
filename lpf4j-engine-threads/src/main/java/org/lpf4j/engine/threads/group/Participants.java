package org.lpf4j.engine.threads.group;

import org.lpf4j.FatalException;

/**
 * For engines only: what the barriers and {@link Waiting} need from the group of processes
 * (threads) they synchronise — the threads engine's team, or a hybrid engine's node-local
 * group. Implementations are thread-safe; every method is cheap and allocation-free except
 * {@link #abandonment} when it returns a reason and {@link #fatal}.
 */
public interface Participants {
    /** @return the waiting policy of this group, resolved when the group was made */
    ThreadsPolicy policy();

    /**
     * @param pid   a waiting process
     * @param round the barrier round it waits in
     * @return why that round can never complete, or {@code null} while it still may
     */
    String abandonment(int pid, long round);

    /** Puts the group into the failure state (the first reason wins) and wakes every waiter. */
    void fail(String reason, Throwable cause);

    /** @return the exception a process of a failed group gets from its sync */
    FatalException fatal(int pid);

    /** @return the thread running process {@code pid}, or {@code null} before it started */
    Thread thread(int pid);
}
