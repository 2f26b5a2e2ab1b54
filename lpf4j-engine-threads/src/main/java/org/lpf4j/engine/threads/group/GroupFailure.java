package org.lpf4j.engine.threads.group;

import org.lpf4j.FatalException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * For engines only: the failure state of a group of {@link Participants} (the threads engine's
 * team, a hybrid node's local processes). Once failed, a group stays failed; every sync of its
 * processes then throws the {@link #followOn} exception, and the call that started the section
 * reports the {@link #outcome}.
 *
 * <p>Rules:
 * <ul>
 *   <li>The first reason wins: later {@link #fail} calls keep it and only add their causes.</li>
 *   <li>The first cause becomes the outcome's cause; every other distinct cause is suppressed in
 *       it, once, in the order the failures happened.</li>
 *   <li>An exception handed out by {@link #followOn} is a consequence of the failure, never a
 *       cause of it: passed to {@link #fail} or {@link #processThrew} it adds no cause. Follow-ons
 *       are plain {@link FatalException}s recognised by identity, so no engine class shows in a
 *       program's stack trace.</li>
 *   <li>Every {@link #fail} wakes every waiter (the {@code wakeAll} given at construction), so
 *       processes parked in a sync notice the failure at once.</li>
 * </ul>
 *
 * <p>Cost: {@link #failed} and {@link #reason} are one volatile read and allocate nothing (the
 * sync path and the barriers' abandonment checks call them). {@link #fail}, {@link #followOn},
 * {@link #processThrew} and {@link #outcome} take this object's lock and allocate; they run only
 * once the group has failed or a process has left. The follow-ons are kept for the group's life:
 * one entry per {@code followOn} call.
 */
public final class GroupFailure {
    private final Runnable wakeAll;
    private volatile String reason;
    // Guarded by this.
    private Throwable firstCause;
    private final List<Throwable> otherCauses = new ArrayList<>();
    private final Set<Throwable> followOns = Collections.newSetFromMap(new IdentityHashMap<>());

    /** @param wakeAll wakes every waiting process of the group (e.g. {@code barrier::wakeAll}); run after each {@link #fail} */
    public GroupFailure(Runnable wakeAll) {
        this.wakeAll = wakeAll;
    }

    /** @return whether the group has failed */
    public boolean failed() { return reason != null; }

    /** @return the reason the group failed (the first one given), or {@code null} */
    public String reason() { return reason; }

    /**
     * Puts the group into the failure state (the first reason wins), records {@code cause} unless
     * it is a follow-on or already recorded, and wakes every waiter.
     *
     * @param reason what happened
     * @param cause  the exception behind it, or {@code null}
     */
    public void fail(String reason, Throwable cause) {
        synchronized (this) {
            if (cause != null && !followOns.contains(cause)) {
                if (firstCause == null) firstCause = cause;
                else if (firstCause != cause && !otherCauses.contains(cause)) otherCauses.add(cause);
            }
            if (this.reason == null) this.reason = reason;
        }
        wakeAll.run();
    }

    /**
     * Fails the group because a process left its SPMD function by throwing {@code thrown}: the
     * reason is "{@code who} threw {@code thrown}", or, for a follow-on, its own message (the
     * process only passed the failure on; the follow-on is no cause).
     *
     * @param who names the process, e.g. {@code "pid 3"}
     */
    public void processThrew(String who, Throwable thrown) {
        fail(isFollowOn(thrown) ? thrown.getMessage() : who + " threw " + thrown, thrown);
    }

    /**
     * @param who names the process, e.g. {@code "pid 3 of 4"}
     * @return a new exception for a sync (or other collective call) of a process of the failed
     *         group, remembered as a follow-on
     */
    public FatalException followOn(String who) {
        FatalException e = new FatalException(who + ": the SPMD section is in the failure state: " + reason, null);
        synchronized (this) {
            followOns.add(e);
        }
        return e;
    }

    /** @return whether {@code t} is an exception {@link #followOn} handed out */
    public synchronized boolean isFollowOn(Throwable t) { return followOns.contains(t); }

    /**
     * @param exception makes the exception from the reason and the first cause (or {@code null})
     * @return the group's failure as an exception with every other cause suppressed in it, or
     *         {@code null} if the group has not failed
     */
    public synchronized <E extends Throwable> E outcome(BiFunction<String, Throwable, E> exception) {
        if (reason == null) return null;
        E e = exception.apply(reason, firstCause);
        for (Throwable t : otherCauses) e.addSuppressed(t);
        return e;
    }
}
