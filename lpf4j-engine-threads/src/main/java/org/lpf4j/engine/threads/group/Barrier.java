package org.lpf4j.engine.threads.group;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Keeps the arrival word off the cache lines of whatever the JVM allocates before a barrier. */
abstract class BarrierPadBefore {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

/** The word every arriving party updates. */
abstract class BarrierArrivals extends BarrierPadBefore {
    /** Low {@link Barrier#COUNT_BITS} bits: arrivals this round; high bits: sum of contributions. */
    volatile long arrivals;
}

/** Keeps the arrival word and the release word on different cache lines (and line pairs). */
abstract class BarrierPadBetween extends BarrierArrivals {
    long p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}

/** The words the last arriver writes and every waiter polls. */
abstract class BarrierRelease extends BarrierPadBetween {
    volatile long generation;
    /** Sum of the contributions of the last completed round; published by the generation write. */
    long lastSum;
    /** The bits the last arriver's work added in the last completed round; published by the generation write. */
    int lastExtra;
}

/** Keeps the release word off the cache lines of whatever the JVM allocates after a barrier. */
abstract class BarrierPadAfter extends BarrierRelease {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;
}

/**
 * The central barrier: a reusable counting barrier for the processes of one group of {@link Participants} that
 * also sums the processes' flags, so that the last arriver learns at no extra cost whether the
 * superstep has any communication at all (and whether it needs a second barrier). Used when
 * processes outnumber cores or are many ({@link DisseminationBarrier} otherwise).
 *
 * <p>Arrival is one {@code getAndAdd} on a word whose low {@link #COUNT_BITS} bits count the
 * arrivals and whose high bits accumulate the contributions; the last arriver publishes the sum
 * and releases the others by bumping a volatile generation. The two words sit on cache lines of
 * their own (superclass padding, which HotSpot lays out before subclass fields). Waiters spin
 * with {@link Thread#onSpinWait()} for a bounded time, then yield for a bounded time, then park
 * until the releaser unparks them ({@link ThreadsPolicy}).
 *
 * <p>Every arrival and release is a volatile access, so the barrier is a happens-before edge from
 * everything each party did before arriving to everything each party does after leaving.
 * Allocation-free.
 */
public final class Barrier extends BarrierPadAfter implements SuperstepBarrier {
    static final int COUNT_BITS = 20;
    /** The most parties a barrier (and so a threads-engine section) can have. */
    public static final int MAX_PARTIES = (1 << COUNT_BITS) - 1;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    private static final VarHandle ARRIVALS;

    static {
        try {
            ARRIVALS = MethodHandles.lookup().findVarHandle(BarrierArrivals.class, "arrivals", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int parties;
    private final Waiting waiting;
    /** How many other processes can run at the same time as a waiter ({@link ThreadsPolicy#runningBeside}). */
    private final int runningBeside;
    private final Waiting.Release released = (gen, unused) -> generationVolatile() != gen;

    public Barrier(Participants team, int parties) {
        if (parties < 1 || parties > MAX_PARTIES) {
            throw new IllegalArgumentException("Barrier: parties=" + parties + " not in [1, " + MAX_PARTIES + "]");
        }
        this.parties = parties;
        this.waiting = new Waiting(team, parties);
        this.runningBeside = team.policy().runningBeside;
    }

    @Override
    public long completedRounds(int pid) { return generationVolatile(); }

    /** {@inheritDoc} Here the last to enter releases the round, so: whether it is released. */
    @Override
    public boolean allEntered(long round) { return generationVolatile() >= round; }

    @Override
    public boolean enteredBeyond(long rounds) {
        // An arrival now belongs to round generation + 1.
        return (arrivalsVolatile() & COUNT_MASK) != 0 && generationVolatile() >= rounds;
    }

    /**
     * {@inheritDoc} The flags are summed in the arrival word: QUEUED as 1 in the bits above the
     * count, UNBUFFERED as 1 in the bits above those (p &lt; 2^20, so neither sum overflows).
     */
    @Override
    public int await(int pid, int flags) {
        return await(pid, flags, null);
    }

    @Override
    public boolean hasLastArriver() { return true; }

    /** {@inheritDoc} The bits are summed as in {@link #await(int, int)}. */
    @Override
    public int await(int pid, int flags, LastArrival last) {
        final long gen = generationVolatile(); // cannot advance before this party arrives
        long add = 1 + ((flags & QUEUED) != 0 ? 1L << COUNT_BITS : 0) + ((flags & UNBUFFERED) != 0 ? 1L << 2 * COUNT_BITS : 0);
        long now = (long) ARRIVALS.getAndAdd(this, add) + add;
        if ((now & COUNT_MASK) == parties) {
            setArrivalsVolatile(0);
            long sums = now >>> COUNT_BITS;
            int extra = last == null ? 0 : last.run(pid, bits(sums));
            lastSum = sums; // plain: published by the volatile generation write below
            lastExtra = extra;
            setGenerationVolatile(gen + 1);
            waiting.wakeParked();
            return bits(sums) | extra;
        }
        // While more processes are missing than can run beside this one, one of them is waiting
        // for this one's CPU: spinning would only delay it.
        waiting.await(released, pid, gen + 1, gen, 0, parties - (int) (now & COUNT_MASK) <= runningBeside);
        // Published by the generation write; not overwritten before all have read them.
        return bits(lastSum) | lastExtra;
    }

    private static int bits(long sums) {
        return ((sums & COUNT_MASK) != 0 ? QUEUED : 0) | ((sums >>> COUNT_BITS) != 0 ? UNBUFFERED : 0);
    }

    @Override
    public Waiting waiting() { return waiting; }

    @Override
    public void wakeAll() { waiting.wakeAll(); }

    // Cross-thread words: the accessor names say the memory order (both fields are volatile).
    private long generationVolatile() { return generation; }

    private void setGenerationVolatile(long value) { generation = value; }

    private long arrivalsVolatile() { return arrivals; }

    private void setArrivalsVolatile(long value) { arrivals = value; }
}
