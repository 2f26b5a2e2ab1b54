package org.lpf4j.engine.threads.group;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Keeps the processes of a team spread over the CPUs: at most ⌈p / cores⌉ on one CPU, i.e. one
 * per CPU while there are enough CPUs.
 *
 * <p><b>Why.</b> The scheduler may put processes of a team that could each have a CPU together
 * on one: every release then needs a context switch, and the kernel's balancer, which sees
 * threads on one CPU taking turns, does not reliably pull one away, so syncs stay several times
 * slower for long stretches. The observations and figures: {@code docs/performance-log.md}.
 *
 * <p><b>What.</b> After a wait that did not end while spinning, a process notes its CPU. At most
 * once per {@link #MIN_INTERVAL_NANOS} it also counts the notes of the others younger than
 * {@link #RECENT_NANOS}: if its CPU holds more than ⌈p / cores⌉ processes, it moves itself off
 * that CPU ({@link Cpus#moveOff}, preferring a CPU below the limit) and gives its thread its
 * full affinity back at once, so nothing stays pinned and threads the program starts later are
 * not confined. A machine whose other load keeps pushing the team together therefore costs at
 * most a few system calls per millisecond and process. Waits that end while spinning erase the
 * note (the process evidently does not share its CPU with the one it waited for).
 *
 * <p>Only when {@link Cpus#usable()}; otherwise {@link #afterSlowWait} and {@link #afterFastWait}
 * return at once. Each process writes only its own cache line; others read it with opaque loads
 * (a stale note costs at most one needless move).
 */
public final class CpuSpreading {
    /** A note older than this is ignored. */
    static final long RECENT_NANOS = 2_000_000L;
    /** A process counts the others' notes (and may move) at most once per this many nanoseconds. */
    static final long MIN_INTERVAL_NANOS = 1_000_000L;
    private static final int STRIDE = 16;
    /** Offsets in a process's line: CPU + 1 (0: none), when noted, when it last counted, how often it moved. */
    private static final int CPU = 0, NOTED = 1, CHECKED = 2, MOVES = 3;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    /** Where a thread runs, how it moves, and the clock: {@link Cpus} and {@link System#nanoTime} in the engine, fakes in tests. */
    interface Placement {
        /** @return the time in nanoseconds */
        default long nanoTime() { return System.nanoTime(); }

        /** @return the calling thread's CPU, or -1 */
        int current();

        /** @return whether the calling thread left {@code cpu} (see {@link Cpus#moveOff}) */
        boolean moveOff(int cpu, boolean[] avoid, Cpus.Masks masks);
    }

    private static final Placement CPUS = new Placement() {
        @Override public int current() { return Cpus.current(); }

        @Override public boolean moveOff(int cpu, boolean[] avoid, Cpus.Masks masks) { return Cpus.moveOff(cpu, avoid, masks); }
    };

    private final int parties;
    /** The most processes one CPU should hold: ⌈parties / cores⌉. */
    private final int perCpu;
    private final boolean active;
    private final Placement placement;
    private final long[] lines;
    /** Per process (written only by it): scratch for counting the others per CPU, and the CPUs to avoid. */
    private final int[][] counts;
    private final boolean[][] avoid;
    /** Per process: native scratch for {@link Cpus#moveOff}, so that a move allocates nothing. */
    private final Cpus.Masks[] masks;

    /**
     * @param parties the processes of the team
     * @param enabled whether the engine's settings allow it (it is also off where {@link Cpus} cannot work)
     */
    public CpuSpreading(int parties, boolean enabled) {
        this(parties, Runtime.getRuntime().availableProcessors(), enabled && Cpus.usable(), CPUS);
    }

    CpuSpreading(int parties, int cores, boolean active, Placement placement) {
        this.parties = parties;
        this.perCpu = (parties + cores - 1) / cores;
        this.active = active && parties > 1 && cores > 1;
        this.placement = placement;
        this.lines = this.active ? new long[STRIDE * (parties + 1)] : new long[0];
        this.counts = new int[this.active ? parties : 0][];
        this.avoid = new boolean[this.active ? parties : 0][];
        this.masks = new Cpus.Masks[this.active ? parties : 0];
        java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofAuto();
        for (int q = 0; q < masks.length; q++) masks[q] = new Cpus.Masks(arena);
        for (int q = 0; q < counts.length; q++) {
            counts[q] = new int[2 * Math.max(parties, cores)];
            avoid[q] = new boolean[counts[q].length];
        }
    }

    /** @return whether this team spreads its processes */
    public boolean active() { return active; }

    /** A wait of {@code pid} ended while spinning: it does not share a CPU with the one it waited for. */
    void afterFastWait(int pid) {
        if (!active) return;
        int i = STRIDE * (pid + 1);
        if (lines[i + CPU] != 0) LONGS.setOpaque(lines, i + CPU, 0L);
    }

    /** A wait of {@code pid} ended while yielding or parked: note its CPU, and move if that CPU holds too many processes. */
    void afterSlowWait(int pid) {
        if (!active) return;
        int cpu = placement.current();
        if (cpu < 0) return;
        long now = placement.nanoTime();
        int i = STRIDE * (pid + 1);
        LONGS.setOpaque(lines, i + NOTED, now);
        LONGS.setOpaque(lines, i + CPU, (long) cpu + 1);
        if (lines[i + CHECKED] != 0 && now - lines[i + CHECKED] < MIN_INTERVAL_NANOS) return;
        lines[i + CHECKED] = now;
        int[] count = scratch(pid, cpu);
        java.util.Arrays.fill(count, 0);
        int others = 0;
        for (int q = 0; q < parties; q++) {
            if (q == pid) continue;
            int j = STRIDE * (q + 1);
            long c = (long) LONGS.getOpaque(lines, j + CPU);
            if (c == 0 || now - (long) LONGS.getOpaque(lines, j + NOTED) > RECENT_NANOS) continue;
            if (c - 1 == cpu) others++;
            if (c - 1 < count.length) count[(int) (c - 1)]++;
        }
        if (others < perCpu) return;
        boolean[] full = avoid[pid];
        for (int c = 0; c < count.length; c++) full[c] = count[c] >= perCpu;
        if (placement.moveOff(cpu, full, masks[pid])) {
            lines[i + MOVES]++;
            LONGS.setOpaque(lines, i + CPU, 0L);
        }
    }

    /** @return how often {@code pid} moved itself (read by pid, or after a barrier) */
    public long moves(int pid) { return active ? lines[STRIDE * (pid + 1) + MOVES] : 0; }

    /** The counting arrays of {@code pid}: made in the constructor, larger only on a machine with CPU numbers beyond 2·max(p, cores). */
    private int[] scratch(int pid, int cpu) {
        int[] c = counts[pid];
        if (c.length <= cpu) {
            int n = Math.max(cpu + 1, 2 * parties);
            counts[pid] = c = new int[n];
            avoid[pid] = new boolean[n];
        }
        return c;
    }
}
