package org.lpf4j.engine.threads.kit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Keeps the processes of a team on different CPUs while there are enough CPUs for all of them.
 *
 * <p><b>Why.</b> On a 2-core machine, p = 2 sections ran about one run in five at 3-20× their
 * usual sync time, for seconds at a time. Reading each process's CPU during such runs showed
 * both threads on one CPU in the slow stretches and on different CPUs in the fast ones (60 of 60
 * slow batches on one CPU in a loaded run): the scheduler had put the pair together, every
 * release then needs a context switch, and the kernel's balancer, which sees two busy threads
 * on one CPU taking turns, does not reliably pull one away.
 *
 * <p><b>What.</b> After a wait that did not end while spinning (the only waits in that state),
 * a process notes its CPU. If another process of the team noted the same CPU within
 * {@link #RECENT_NANOS}, it moves itself off that CPU ({@link Cpus#moveOff}, preferring a CPU no
 * process of the team noted) and gives its thread its full affinity back at once, so nothing
 * stays pinned and threads the program starts later are not confined. A process moves at most
 * once per {@link #MIN_INTERVAL_NANOS}, so a machine whose other load keeps pushing the team
 * together costs at most a few system calls per millisecond. Waits that end while spinning
 * erase the note (the process is evidently not sharing).
 *
 * <p>Only when {@link Cpus#usable()} and the team has no more processes than CPUs; otherwise
 * {@link #afterSlowWait} and {@link #afterFastWait} return at once. Each process writes only its
 * own cache line; others read it with opaque loads (a stale note costs at most one needless move).
 */
public final class CpuSpreading {
    /** A note older than this is ignored. */
    static final long RECENT_NANOS = 2_000_000L;
    /** A process moves itself at most once per this many nanoseconds. */
    static final long MIN_INTERVAL_NANOS = 1_000_000L;
    private static final int STRIDE = 16;
    /** Offsets in a process's line: CPU + 1 (0: none), when noted, when it last moved, how often it moved. */
    private static final int CPU = 0, NOTED = 1, MOVED = 2, MOVES = 3;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    /** Where a thread runs, how it moves, and the clock: {@link Cpus} and {@link System#nanoTime} in the engine, fakes in tests. */
    interface Placement {
        /** @return the time in nanoseconds */
        default long nanoTime() { return System.nanoTime(); }

        /** @return the calling thread's CPU, or -1 */
        int current();

        /** @return whether the calling thread left {@code cpu} (see {@link Cpus#moveOff}) */
        boolean moveOff(int cpu, boolean[] avoid);
    }

    private static final Placement CPUS = new Placement() {
        @Override public int current() { return Cpus.current(); }

        @Override public boolean moveOff(int cpu, boolean[] avoid) { return Cpus.moveOff(cpu, avoid); }
    };

    private final int parties;
    private final boolean active;
    private final Placement placement;
    private final long[] lines;
    /** Per process (written only by it): CPUs to avoid when it moves. */
    private final boolean[][] avoid;

    /**
     * @param parties the processes of the team
     * @param enabled whether the engine's settings allow it (it is also off without enough CPUs)
     */
    public CpuSpreading(int parties, boolean enabled) {
        this(parties, enabled && Cpus.usable() && parties <= Runtime.getRuntime().availableProcessors(), CPUS);
    }

    CpuSpreading(int parties, boolean active, Placement placement) {
        this.parties = parties;
        this.active = active && parties > 1;
        this.placement = placement;
        this.lines = active ? new long[STRIDE * (parties + 1)] : new long[0];
        this.avoid = new boolean[active ? parties : 0][];
    }

    /** @return whether this team spreads its processes */
    public boolean active() { return active; }

    /** A wait of {@code pid} ended while spinning: it does not share a CPU with the one it waited for. */
    void afterFastWait(int pid) {
        if (!active) return;
        int i = STRIDE * (pid + 1);
        if (lines[i + CPU] != 0) LONGS.setOpaque(lines, i + CPU, 0L);
    }

    /** A wait of {@code pid} ended while yielding or parked: note its CPU, and move if another process shares it. */
    void afterSlowWait(int pid) {
        if (!active) return;
        int cpu = placement.current();
        if (cpu < 0) return;
        long now = placement.nanoTime();
        int i = STRIDE * (pid + 1);
        LONGS.setOpaque(lines, i + NOTED, now);
        LONGS.setOpaque(lines, i + CPU, (long) cpu + 1);
        if (lines[i + MOVED] != 0 && now - lines[i + MOVED] < MIN_INTERVAL_NANOS) return;
        boolean shared = false;
        boolean[] busy = avoid(pid, cpu);
        java.util.Arrays.fill(busy, false);
        for (int q = 0; q < parties; q++) {
            if (q == pid) continue;
            int j = STRIDE * (q + 1);
            long c = (long) LONGS.getOpaque(lines, j + CPU);
            if (c == 0 || now - (long) LONGS.getOpaque(lines, j + NOTED) > RECENT_NANOS) continue;
            if (c - 1 == cpu) shared = true;
            else if (c - 1 < busy.length) busy[(int) (c - 1)] = true;
        }
        if (!shared) return;
        lines[i + MOVED] = now;
        if (placement.moveOff(cpu, busy)) {
            lines[i + MOVES]++;
            LONGS.setOpaque(lines, i + CPU, 0L);
        }
    }

    /** @return how often {@code pid} moved itself (read by pid, or after a barrier) */
    public long moves(int pid) { return active ? lines[STRIDE * (pid + 1) + MOVES] : 0; }

    private boolean[] avoid(int pid, int cpu) {
        boolean[] a = avoid[pid];
        if (a == null || a.length <= cpu) avoid[pid] = a = new boolean[Math.max(cpu + 1, 2 * parties)];
        return a;
    }
}
