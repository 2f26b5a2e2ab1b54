package org.lpf4j.spark;

import org.apache.spark.BarrierTaskInfo;
import org.junit.jupiter.api.Test;
import org.lpf4j.engine.net.HostedSection;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a stage's task derives from its stage without Spark running: the probe cache's placement; its kill watch. */
class BspTaskTest {
    private static BspTask<Long, Long> stage(String application) {
        return new BspTask<>((ctx, partition) -> List.<Long>of().iterator(), HostedSection.newSecret(), "spark-" + UUID.randomUUID(),
                application, Map.of(), false, true);
    }

    private static BarrierTaskInfo[] tasks(String... addresses) {
        BarrierTaskInfo[] t = new BarrierTaskInfo[addresses.length];
        for (int i = 0; i < t.length; i++) t[i] = new BarrierTaskInfo(addresses[i]);
        return t;
    }

    @Test
    void twoStagesOfOneApplicationShareTheProbeCachesKey() {
        BarrierTaskInfo[] first = tasks("10.0.0.1:7001", "10.0.0.1:7001", "10.0.0.1:7002", "10.0.0.1:7002");
        String placement = stage("app-20261127-0001").placement(first, true);
        assertEquals("spark/app-20261127-0001/nodes/2.2", placement);
        assertEquals(placement, stage("app-20261127-0001").placement(first, true), "another stage (another run id), the same key");
        // The same shape, whichever partitions land on which executor and host.
        assertEquals(stage("a").placement(tasks("h1:1", "h2:1", "h1:2", "h1:2"), false),
                stage("a").placement(tasks("h2:1", "h1:2", "h1:2", "h1:1"), false));
        assertEquals("spark/a/tasks/1_2.1", stage("a").placement(tasks("h1:1", "h2:1", "h1:2", "h1:2"), false));
    }

    @Test
    void anotherApplicationOrShapeHasAnotherKey() {
        BarrierTaskInfo[] tasks = tasks("h:1", "h:1", "h:2", "h:2");
        String placement = stage("app-1").placement(tasks, true);
        assertNotEquals(placement, stage("app-2").placement(tasks, true));
        assertNotEquals(placement, stage("app-1").placement(tasks, false));
        assertNotEquals(placement, stage("app-1").placement(tasks("h:1", "h:1", "h:1", "h:2"), true));
        assertNotEquals(placement, stage("app-1").placement(tasks("h:1", "h:1", "g:2", "g:2"), true));
    }

    /**
     * A task killed before its node's abort was handed to the watch (the kill came while it
     * joined its node): the abort still runs, at once, else the node's other tasks would wait in
     * its barrier until their arrival time. Before, it never ran.
     */
    @Test
    void anAbortGivenAfterTheKillWasSeenRunsAtOnce() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        Thread task = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        AtomicInteger aborts = new AtomicInteger();
        try (BspTask.KillWatch watch = new BspTask.KillWatch(() -> true, task)) {
            assertTrue(interrupted.await(10, TimeUnit.SECONDS), "the watch interrupts the killed task's thread");
            watch.onKill(aborts::incrementAndGet);
            assertEquals(1, aborts.get(), "the abort given after the kill ran");
        } finally {
            task.interrupt();
            task.join(10_000);
        }
        AtomicInteger later = new AtomicInteger();
        CountDownLatch ran = new CountDownLatch(1);
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // the kill
            }
        });
        AtomicBoolean killed = new AtomicBoolean();
        try (BspTask.KillWatch watch = new BspTask.KillWatch(killed::get, other)) {
            watch.onKill(() -> {
                later.incrementAndGet();
                ran.countDown();
            });
            assertEquals(0, later.get(), "nothing runs before the kill");
            killed.set(true);
            assertTrue(ran.await(10, TimeUnit.SECONDS), "the abort given before the kill runs when it comes");
            assertEquals(1, later.get());
        } finally {
            other.interrupt();
            other.join(10_000);
        }
    }
}
