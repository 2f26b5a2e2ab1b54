package org.lpf4j.engine.threads.group;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each rule {@link ProcessLedger} states, one test each, over a barrier whose rounds the test sets. */
@Timeout(60)
class ProcessLedgerTest {

    /** A barrier that only counts: each pid's completed rounds are what the test says; wakeAll is counted. */
    private static final class Rounds implements SuperstepBarrier {
        final long[] completed;
        final AtomicInteger wakes = new AtomicInteger();

        Rounds(int p) { completed = new long[p]; }

        @Override public int await(int pid, int flags) { throw new UnsupportedOperationException(); }
        @Override public boolean allEntered(long round) { return false; }
        @Override public long completedRounds(int pid) { return completed[pid]; }
        @Override public boolean enteredBeyond(long rounds) { return false; }
        @Override public Waiting waiting() { return null; }
        @Override public void wakeAll() { wakes.incrementAndGet(); }
    }

    private final Rounds barrier = new Rounds(4);
    private final ProcessLedger ledger = new ProcessLedger(4, barrier);

    private void exit(int pid, long rounds) {
        barrier.completed[pid] = rounds;
        ledger.exit(pid);
    }

    @Test
    void nobodyLeftNobodyAbandons() {
        assertEquals(0, ledger.exited());
        assertEquals(-1, ledger.leftBefore(1));
        assertEquals(-1, ledger.leftBefore(Long.MAX_VALUE));
    }

    @Test
    void aProcessThatLeftAfterRoundRTookPartInRoundROnly() {
        exit(2, 3);
        assertEquals(-1, ledger.leftBefore(3), "it completed round 3: a waiter there is not abandoned by it");
        assertEquals(2, ledger.leftBefore(4));
        assertEquals(2, ledger.leftBefore(100));
    }

    @Test
    void theEarliestLeaverIsNamed() {
        exit(1, 5);
        exit(3, 2);
        exit(0, 2); // as few rounds, but later: the first to record the count stays named
        exit(2, 4);
        assertEquals(3, ledger.leftBefore(3));
        assertEquals(3, ledger.leftBefore(6));
        assertEquals(4, ledger.exited());
    }

    @Test
    void everyExitWakesEveryWaiter() {
        exit(0, 1);
        exit(1, 1);
        assertEquals(2, barrier.wakes.get());
    }

    @Test
    void attachRecordsTheCallingThread() throws Exception {
        assertNull(ledger.thread(1));
        Thread t = Thread.ofPlatform().start(() -> ledger.attach(1));
        t.join();
        assertSame(t, ledger.thread(1));
        assertNull(ledger.thread(0));
    }

    @Test
    void awaitAllExitedReturnsOnceEveryProcessLeft() throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int pid = 0; pid < 4; pid++) {
            int me = pid;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(20L * me);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                ledger.exit(me);
            }));
        }
        ledger.awaitAllExited(() -> false);
        assertEquals(4, ledger.exited());
        for (Thread t : threads) t.join();
    }

    @Test
    void awaitAllExitedStopsWhenTheCallerHasEnoughAndKeepsAnInterrupt() {
        exit(0, 1);
        AtomicInteger checks = new AtomicInteger();
        Thread.currentThread().interrupt();
        ledger.awaitAllExited(() -> checks.incrementAndGet() == 3);
        assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
        assertEquals(3, checks.get(), "checked before each park until it said enough");
        assertEquals(1, ledger.exited());
    }

    @Test
    void askingWhoLeftAllocatesNothing() {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        exit(2, 3);
        long least = Long.MAX_VALUE, sum = 0;
        for (int window = 0; window < 4; window++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) sum += ledger.leftBefore(i & 7) + ledger.exited();
            long bytes = mx.getCurrentThreadAllocatedBytes() - before;
            if (window > 0) least = Math.min(least, bytes);
        }
        assertTrue(sum != 0);
        assertTrue(least < 1024, least + " bytes allocated by 100 000 questions");
    }
}
