package org.lpf4j.engine.threads.group;

/**
 * What a sync needs from a barrier: all processes of a group of {@link Participants} arrive, each with a few
 * flag bits, and leave knowing the OR of everybody's bits (so that an empty superstep costs one
 * barrier and nobody has to ask twice whether anyone queued anything).
 *
 * <p>Contract of every implementation: a happens-before edge from everything each process did
 * before arriving to everything each process does after leaving; no allocation; a waiter spins,
 * yields and parks as {@link ThreadsPolicy} says and never waits for ever: it fails the team
 * (and throws {@link org.lpf4j.FatalException}) as soon as {@link Participants#abandonment} gives a
 * reason and the round has still not completed.
 */
public interface SuperstepBarrier {
    // The bits, in one place: the group's flags are the lowest GROUP_FLAG_BITS (QUEUED, UNBUFFERED);
    // bits from FIRST_ENGINE_BIT up belong to the engine's LastArrival; the bits between are unused.
    // A process arrives with group flags only; engine bits come from a LastArrival.
    /** Flag: the process queued at least one request this superstep. */
    int QUEUED = 1;
    /** Flag: some request reads its source during the sync (a second barrier is needed). */
    int UNBUFFERED = 2;
    /**
     * How many low bits the group's flags take: a barrier that packs a process's flags beside other
     * data in one word ({@link DisseminationBarrier}'s signal) shifts that data by this much.
     */
    int GROUP_FLAG_BITS = 2;
    /** Every group flag: {@link #QUEUED} | {@link #UNBUFFERED}, the mask of the low {@link #GROUP_FLAG_BITS} bits. */
    int GROUP_FLAGS = QUEUED | UNBUFFERED;
    /**
     * The lowest bit an engine's {@link LastArrival} may return for its own meaning (the hybrid
     * engine's node round uses this and the next one); the barrier ORs such bits through unread.
     */
    int FIRST_ENGINE_BIT = 1 << 8;

    /**
     * Arrives and waits for all processes.
     *
     * @param pid   the arriving process
     * @param flags this process's bits ({@link #QUEUED}, {@link #UNBUFFERED})
     * @return the OR of all processes' bits
     */
    int await(int pid, int flags);

    /**
     * Work the last process to arrive does before it releases the others (see
     * {@link #await(int, int, LastArrival)}). Must not allocate if the sync path is to stay
     * allocation-free.
     */
    @FunctionalInterface
    interface LastArrival {
        /**
         * @param pid   the last arriver
         * @param flags the OR of all processes' bits
         * @return further bits for every process's result (0 for none)
         */
        int run(int pid, int flags);
    }

    /** @return whether this barrier has a last arriver, so that {@link #await(int, int, LastArrival)} works */
    default boolean hasLastArriver() {
        return false;
    }

    /**
     * Arrives and waits for all processes, and the last to arrive runs {@code last} before it
     * releases the others: the round's work is done by a process that is running anyway, instead
     * of a fixed one the others wake. If {@code last} throws, the round is not released (the
     * waiters leave as the contract says once the team has failed, so {@code last} must fail the
     * team before it throws).
     *
     * @param pid   the arriving process
     * @param flags this process's bits
     * @param last  the last arriver's work
     * @return the OR of all processes' bits and of what {@code last} returned
     * @throws UnsupportedOperationException if {@link #hasLastArriver()} is false
     */
    default int await(int pid, int flags, LastArrival last) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no last arriver");
    }

    /**
     * @param round a round number (the first round is 1)
     * @return whether every process has entered round {@code round} (so that it will complete)
     */
    boolean allEntered(long round);

    /** @return how many rounds {@code pid} has completed (valid while pid is not inside one) */
    long completedRounds(int pid);

    /**
     * @param rounds a number of completed rounds
     * @return whether some process has entered a round after {@code rounds} (used to notice a
     *         process that syncs while the others are inside a rehook)
     */
    boolean enteredBeyond(long rounds);

    /** @return how this barrier's processes wait (and how their waits ended) */
    Waiting waiting();

    /** Wakes every waiting process (the team failed; they will notice). */
    void wakeAll();

    /**
     * @param team the group
     * @param p    its processes
     * @param kind auto (dissemination while every process has a core and p is at most
     *             {@link DisseminationBarrier#MAX_PARTIES}, central otherwise), central or dissemination
     * @return the barrier for p processes
     */
    static SuperstepBarrier create(Participants team, int p, String kind) {
        boolean dissemination = switch (kind) {
            case "dissemination" -> true;
            case "central" -> false;
            default -> p <= Runtime.getRuntime().availableProcessors() && p <= DisseminationBarrier.MAX_PARTIES;
        };
        return dissemination ? new DisseminationBarrier(team, p) : new Barrier(team, p);
    }
}
