package org.lpf4j.engine.threads.group;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link CpuSpreading}'s rules, driven with a fake placement (which CPU each process reports,
 * which moves it asks for), so they hold whatever the machine does; and {@link Cpus#moveOff} on
 * the real kernel where it can run.
 */
@Timeout(60)
class CpuSpreadingTest {

    /** Reports {@code cpu[pid]} for the process set in {@code who}, records every move; its clock advances 1 µs per reading. */
    private static class Fake implements CpuSpreading.Placement {
        final int[] cpu;
        int who;
        final List<String> moves = new ArrayList<>();
        boolean[] lastAvoid;
        long now = 1_000_000_000L;

        @Override public long nanoTime() { return now += 1_000; }

        Fake(int... cpu) { this.cpu = cpu; }

        @Override public int current() { return cpu[who]; }

        @Override public boolean moveOff(int c, boolean[] avoid, Cpus.Masks masks) {
            moves.add(who + " off " + c);
            lastAvoid = avoid.clone();
            return true;
        }
    }

    private static void slow(CpuSpreading s, Fake f, int pid) {
        f.who = pid;
        s.afterSlowWait(pid);
    }

    @Test
    void aProcessThatFindsAnotherOnItsCpuMovesOffIt() {
        Fake f = new Fake(0, 0, 1);
        CpuSpreading s = new CpuSpreading(3, 3, true, f);
        slow(s, f, 0);
        assertEquals(List.of(), f.moves, "alone on CPU 0 so far: nobody moves");
        slow(s, f, 1);
        assertEquals(List.of("1 off 0"), f.moves);
        assertEquals(1, s.moves(1));
        assertEquals(0, s.moves(0));
    }

    @Test
    void theMoverAvoidsCpusOtherProcessesNoted() {
        Fake f = new Fake(0, 2, 0, 3);
        CpuSpreading s = new CpuSpreading(4, 4, true, f);
        slow(s, f, 0);
        slow(s, f, 1);
        slow(s, f, 3);
        slow(s, f, 2);
        assertEquals(List.of("2 off 0"), f.moves);
        boolean[] avoid = java.util.Arrays.copyOf(f.lastAvoid, 4);
        assertArrayEquals(new boolean[] {true, false, true, true}, avoid, "CPUs 0, 2 and 3 hold one process each, the limit");
    }

    @Test
    void oversubscribedACpuHoldsUpToTheCeilingOfPOverCores() {
        Fake f = new Fake(0, 0, 0, 1);
        CpuSpreading s = new CpuSpreading(4, 2, true, f);
        slow(s, f, 0);
        slow(s, f, 1);
        assertEquals(List.of(), f.moves, "two of four on one of two CPUs is the fair share");
        slow(s, f, 2);
        assertEquals(List.of("2 off 0"), f.moves, "a third one is too many");
        assertTrue(f.lastAvoid[0] && !f.lastAvoid[1], "CPU 0 is full, CPU 1 is not");
        slow(s, f, 3);
        assertEquals(List.of("2 off 0"), f.moves);
    }

    @Test
    void aWaitThatEndsSpinningErasesTheNote() {
        Fake f = new Fake(0, 0);
        CpuSpreading s = new CpuSpreading(2, 2, true, f);
        slow(s, f, 0);
        s.afterFastWait(0);
        slow(s, f, 1);
        assertEquals(List.of(), f.moves, "pid 0 spun successfully since it noted CPU 0, so it is not there any more");
    }

    @Test
    void aProcessCountsAndMovesAtMostOncePerInterval() {
        Fake f = new Fake(0, 0);
        CpuSpreading s = new CpuSpreading(2, 2, true, f);
        slow(s, f, 0);
        slow(s, f, 1);
        slow(s, f, 0); // pid 1 moved and erased its note: pid 0 is alone
        f.cpu[1] = 0; // the kernel put pid 1 back at once
        slow(s, f, 1);
        assertEquals(List.of("1 off 0"), f.moves, "a second check within " + CpuSpreading.MIN_INTERVAL_NANOS + " ns");
        f.now += CpuSpreading.MIN_INTERVAL_NANOS / 2;
        slow(s, f, 1); // still within the interval: noted, not moved
        assertEquals(List.of("1 off 0"), f.moves);
        f.now += CpuSpreading.MIN_INTERVAL_NANOS / 2;
        slow(s, f, 0); // pid 1's note is recent, and pid 0 has never moved
        assertEquals(List.of("1 off 0", "0 off 0"), f.moves);
        f.now += CpuSpreading.MIN_INTERVAL_NANOS;
        slow(s, f, 1); // pid 0 erased its note when it moved: pid 1 is alone on CPU 0
        assertEquals(List.of("1 off 0", "0 off 0"), f.moves);
    }

    @Test
    void notesOlderThanTheirLifetimeAreIgnored() {
        Fake f = new Fake(0, 0);
        CpuSpreading s = new CpuSpreading(2, 2, true, f);
        slow(s, f, 0);
        f.now += CpuSpreading.RECENT_NANOS;
        slow(s, f, 1);
        assertEquals(List.of(), f.moves);
    }

    @Test
    void inactiveSpreadingNeverAsksWhereItRuns() {
        Fake f = new Fake(0, 0) {
            @Override public int current() { throw new AssertionError("asked for the CPU while inactive"); }
        };
        CpuSpreading off = new CpuSpreading(2, 2, false, f);
        assertFalse(off.active());
        off.afterSlowWait(0);
        off.afterSlowWait(1);
        assertEquals(0, off.moves(1));
        assertFalse(new CpuSpreading(1, 2, true, f).active(), "a single process has nobody to share with");
        assertFalse(new CpuSpreading(2, 1, true, f).active(), "one core: nowhere to go");
    }

    /** The real mechanism: the thread leaves its CPU, and its affinity is what it was. */
    @Test
    void moveOffLeavesTheCpuAndRestoresTheAffinity() {
        assumeTrue(Cpus.usable(), "needs Linux and native access (the build passes --enable-native-access)");
        int allowed = Cpus.allowed();
        assumeTrue(allowed >= 2, "needs two CPUs");
        int moved = 0;
        Cpus.Masks masks = new Cpus.Masks(java.lang.foreign.Arena.ofAuto());
        for (int i = 0; i < 5; i++) {
            int before = Cpus.current();
            assertTrue(before >= 0);
            boolean accepted = Cpus.moveOff(before, new boolean[0], masks);
            assumeTrue(accepted || i > 0, "this system refuses sched_setaffinity");
            assertTrue(accepted, "the kernel accepted the first move but not move " + i);
            if (Cpus.current() != before) moved++;
            assertEquals(allowed, Cpus.allowed(), "the full affinity is back after the move");
        }
        // The kernel may move the thread back at any time, but not right after nearly every move.
        assertTrue(moved >= 3, "left the CPU in only " + moved + " of 5 moves");
        assertNotEquals(-1, Cpus.current());
    }
}
