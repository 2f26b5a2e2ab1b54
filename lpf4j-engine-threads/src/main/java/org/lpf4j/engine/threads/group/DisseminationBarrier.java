package org.lpf4j.engine.threads.group;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A dissemination barrier (Hensgen, Finkel and Manber, 1988) that ORs each process's flag bits
 * into everybody's result: in round k process i signals process (i + 2^k) mod p and waits for
 * the signal of (i − 2^k) mod p; after ⌈log₂ p⌉ rounds every process has heard, directly or
 * through others, from every process. Each signal is one write to a cache line that only its
 * receiver polls, so a barrier of two processes costs one cache-line transfer each way in
 * parallel, where the central counter costs two in a row (figures: {@code docs/performance.md}).
 *
 * <p>A signal is the word {@code round << GROUP_FLAG_BITS | flags} (the flag bits are laid out in
 * {@link SuperstepBarrier}); slots alternate between two sets by the parity of the round, which
 * suffices: a process can only signal round r + 2 after every process has finished round r + 1,
 * hence has read its round-r signals. Memory is p · 2 · ⌈log₂ p⌉ padded
 * slots, so this barrier is for moderate p ({@link #MAX_PARTIES}); the engine uses it when every
 * process has a core, and the central barrier otherwise.
 */
public final class DisseminationBarrier implements SuperstepBarrier {
    public static final int MAX_PARTIES = 256;
    /** One slot per 128 bytes: a cache line and its adjacent-line prefetch partner. */
    private static final int STRIDE = 16;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    private final int parties;
    private final int rounds;
    /** Signal slots: index(pid, parity, k) is written by pid's round-k partner, polled by pid. */
    private final long[] slots;
    /** Per pid (padded): {@code round << 1 | inside}, the last round it entered and whether it is still in it. */
    private final long[] state;
    private final Waiting waiting;
    private final Waiting.Release signalled = this::signalled;

    public DisseminationBarrier(Participants team, int parties) {
        if (parties < 1 || parties > MAX_PARTIES) {
            throw new IllegalArgumentException("DisseminationBarrier: parties=" + parties + " not in [1, " + MAX_PARTIES + "]");
        }
        this.parties = parties;
        this.rounds = 32 - Integer.numberOfLeadingZeros(parties - 1);
        this.slots = new long[STRIDE * (2 * parties * Math.max(rounds, 1) + 1)];
        this.state = new long[STRIDE * (parties + 1)];
        this.waiting = new Waiting(team, parties);
    }

    private int slot(int pid, int parity, int k) {
        return STRIDE * (1 + (pid * 2 + parity) * rounds + k);
    }

    private int stateIndex(int pid) { return STRIDE * (1 + pid); }

    @Override
    public int await(int pid, int flags) {
        final int si = stateIndex(pid);
        final long round = (state[si] >>> 1) + 1; // only pid writes its state
        SLOT.setRelease(state, si, round << 1 | 1);
        final int parity = (int) (round & 1);
        int bits = flags;
        for (int k = 0, distance = 1; k < rounds; k++, distance <<= 1) {
            int to = (pid + distance) % parties;
            SLOT.setVolatile(slots, slot(to, parity, k), round << GROUP_FLAG_BITS | bits);
            waiting.wake(to);
            int at = slot(pid, parity, k);
            long v = (long) SLOT.getVolatile(slots, at);
            if (v >>> GROUP_FLAG_BITS != round) {
                waiting.await(signalled, pid, round, at, round);
                v = (long) SLOT.getVolatile(slots, at);
            }
            bits |= (int) v & GROUP_FLAGS;
        }
        SLOT.setRelease(state, si, round << 1);
        return bits;
    }

    /** @return whether slot {@code at} holds the signal of {@code round} */
    private boolean signalled(long at, long round) {
        return (long) SLOT.getVolatile(slots, (int) at) >>> GROUP_FLAG_BITS == round;
    }

    @Override
    public long completedRounds(int pid) {
        return (long) SLOT.getAcquire(state, stateIndex(pid)) >>> 1;
    }

    @Override
    public boolean allEntered(long round) {
        for (int pid = 0; pid < parties; pid++) {
            if ((long) SLOT.getAcquire(state, stateIndex(pid)) >>> 1 < round) return false;
        }
        return true;
    }

    @Override
    public boolean enteredBeyond(long rounds) {
        for (int pid = 0; pid < parties; pid++) {
            if ((long) SLOT.getAcquire(state, stateIndex(pid)) >>> 1 > rounds) return true;
        }
        return false;
    }

    @Override
    public Waiting waiting() { return waiting; }

    @Override
    public void wakeAll() { waiting.wakeAll(); }
}
