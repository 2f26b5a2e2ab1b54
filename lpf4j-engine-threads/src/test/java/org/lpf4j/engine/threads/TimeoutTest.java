package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.Args;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No silent wait: hook members whose peers never arrive, processes waiting in a sync for one
 * that never comes (with a sync timeout), and an early return all fail with a message naming
 * the missing pids.
 */
@Timeout(60)
class TimeoutTest {
    private static ThreadsSettings settings(int hookMillis, int syncMillis) {
        return new ThreadsSettings(2, -1, -1, 50, "auto", 512, hookMillis, syncMillis, true);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void hookMembersWaitingForOnesThatNeverArriveFailNamingThem(boolean syncs) throws InterruptedException {
        int n = 4;
        ThreadsEngine.Group group = ThreadsEngine.group(n, settings(200, 0));
        AtomicReferenceArray<Throwable> thrown = new AtomicReferenceArray<>(n);
        Thread[] threads = new Thread[2];
        for (int k = 0; k < 2; k++) { // pids 0 and 2 arrive; 1 and 3 never do
            final int pid = 2 * k;
            threads[k] = new Thread(() -> {
                try {
                    Lpf.hook(group.member(pid), ctx -> { if (syncs) ctx.sync(); }, Args.NONE);
                } catch (Throwable t) {
                    thrown.set(pid, t);
                }
            });
            threads[k].start();
        }
        long t0 = System.nanoTime();
        for (Thread t : threads) t.join(20_000);
        for (Thread t : threads) assertTrue(!t.isAlive(), "a member still waits");
        assertTrue(System.nanoTime() - t0 >= 150_000_000L, "waited the timeout");
        for (int pid : new int[] {0, 2}) {
            Throwable t = thrown.get(pid);
            assertEquals(FatalException.class, t.getClass(), String.valueOf(t));
            assertTrue(t.getMessage().contains("pids [1, 3] of 4 did not arrive within 200 ms")
                    && t.getMessage().contains("lpf.engine.threads.hookTimeout"), t.getMessage());
        }
        assertNull(thrown.get(1));
    }

    @Test
    void aProcessThatNeverReachesItsSyncIsNamedAfterTheSyncTimeout() {
        CountDownLatch failed = new CountDownLatch(1);
        FatalException e = assertThrows(FatalException.class, () -> ThreadsEngine.root(settings(0, 200)).exec(4, ctx -> {
            ctx.sync();
            if (ctx.pid() == 2) { // stuck outside lpf4j until pid 0 has its FatalException
                try {
                    failed.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
            }
            try {
                ctx.sync();
            } catch (FatalException f) {
                failed.countDown();
                throw f;
            }
        }));
        assertEquals(0, failed.getCount(), "the waiting processes failed before pid 2 moved on");
        assertTrue(e.getMessage().contains("pid 2 of 4 did not reach sync 2 within 200 ms")
                && e.getMessage().contains("lpf.engine.threads.syncTimeout"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8})
    void anEarlyReturnNamesThePidThatReturned(int p) {
        int returner = p - 1;
        FatalException e = assertThrows(FatalException.class, () -> ThreadsEngine.root(settings(0, 0)).exec(p, ctx -> {
            ctx.sync();
            if (ctx.pid() == returner) return;
            ctx.sync();
        }));
        assertTrue(e.getMessage().contains("pid " + returner + " returned from its SPMD function after 1 syncs while pid "),
                e.getMessage());
        assertTrue(e.getMessage().contains("waits in sync 2"), e.getMessage());
        assertTrue(!e.getMessage().contains("pid " + returner + " waits"), e.getMessage());
    }

    /**
     * A process stuck outside lpf4j for good (a loop that ignores interrupts) does not hold exec:
     * once the sync timeout has named it, exec waits for it as long again, then interrupts it and
     * returns its failure saying that the thread was left running (before, exec waited for the
     * thread forever and nothing was printed).
     */
    @Test
    void execReturnsWithoutAProcessStuckOutsideLpf4jForGood() throws InterruptedException {
        java.util.concurrent.atomic.AtomicBoolean release = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<Thread> stuck = new java.util.concurrent.atomic.AtomicReference<>();
        long t0 = System.nanoTime();
        try {
            FatalException e = assertThrows(FatalException.class, () -> ThreadsEngine.root(settings(0, 300)).exec(2, ctx -> {
                ctx.sync();
                if (ctx.pid() == 1) {
                    stuck.set(Thread.currentThread());
                    while (!release.get()) Thread.onSpinWait(); // deaf to interrupts
                }
                ctx.sync();
            }));
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(e.getMessage().contains("pid 1 of 2 did not reach sync 2 within 300 ms"), e.getMessage());
            assertTrue(e.getMessage().contains("pid 1 (thread lpf-threads-") && e.getMessage().contains("interrupted and left running"),
                    e.getMessage());
            assertTrue(millis < 10_000, "exec returned after " + millis + " ms");
            assertTrue(stuck.get().isAlive(), "the stuck thread was left running");
            assertTrue(stuck.get().isInterrupted(), "and interrupted");
        } finally {
            release.set(true);
            if (stuck.get() != null) stuck.get().join(10_000);
        }
        assertTrue(!stuck.get().isAlive(), "released, it ended");
    }
}
