package org.lpf4j.engine.threads.group;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.lpf4j.FatalException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The central {@link Barrier}'s last-arriver work ({@link SuperstepBarrier#await(int, int,
 * SuperstepBarrier.LastArrival)}): it runs once per round, only after every process has arrived
 * and before any leaves; the bits it returns reach every process with the OR of their flags; and
 * if it fails the group and throws, the round is never released and the others get the group's
 * FatalException. The dissemination barrier has no last arriver and says so.
 */
@Timeout(60)
class LastArrivalTest {
    private static final int ROUNDS = 2_000, EXTRA = 1 << 8;

    /** A group that fails once and then tells every waiter why. */
    private static final class Group implements Participants {
        private final ThreadsPolicy policy;
        volatile String failure;

        Group(int p) { policy = ThreadsPolicy.forProcesses(p, -1, -1); }

        @Override public ThreadsPolicy policy() { return policy; }

        @Override public String abandonment(int pid, long round) { return failure; }

        @Override public void fail(String reason, Throwable cause) { if (failure == null) failure = reason; }

        @Override public FatalException fatal(int pid) { return new FatalException("failed: " + failure, null); }

        @Override public Thread thread(int pid) { return null; }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void theWorkRunsOncePerRoundWithEveryoneInsideAndItsBitsReachEveryone(int p) throws Exception {
        Barrier barrier = new Barrier(new Group(p), p);
        assertTrue(barrier.hasLastArriver());
        AtomicIntegerArray arrived = new AtomicIntegerArray(ROUNDS), left = new AtomicIntegerArray(ROUNDS);
        AtomicIntegerArray runs = new AtomicIntegerArray(ROUNDS);
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int pid = 0; pid < p; pid++) {
            int me = pid;
            int[] round = new int[1];
            SuperstepBarrier.LastArrival work = (who, flags) -> {
                int r = round[0];
                runs.incrementAndGet(r);
                if (who != me) wrong.add("round " + r + ": the work ran for pid " + who + " on pid " + me + "'s call");
                if (arrived.get(r) != p) wrong.add("round " + r + ": the work ran with " + arrived.get(r) + " of " + p + " arrived");
                if (left.get(r) != 0) wrong.add("round " + r + ": someone left before the work ran");
                return r % 2 == 0 ? EXTRA : 0;
            };
            threads.add(Thread.ofPlatform().start(() -> {
                for (int r = 0; r < ROUNDS; r++) {
                    round[0] = r;
                    arrived.incrementAndGet(r);
                    int flags = me == r % p && r % 3 == 0 ? SuperstepBarrier.QUEUED : 0;
                    int all = barrier.await(me, flags, work);
                    left.incrementAndGet(r);
                    int expected = (r % 3 == 0 ? SuperstepBarrier.QUEUED : 0) | (r % 2 == 0 ? EXTRA : 0);
                    if (all != expected) wrong.add("round " + r + ": pid " + me + " got bits " + all + ", expected " + expected);
                }
            }));
        }
        for (Thread t : threads) t.join();
        assertTrue(wrong.isEmpty(), () -> wrong.size() + " violations, e.g. " + wrong.peek());
        for (int r = 0; r < ROUNDS; r++) assertEquals(1, runs.get(r), "runs of the work in round " + r);
    }

    @Test
    void workThatFailsTheGroupNeverReleasesTheRound() throws Exception {
        int p = 3;
        Group group = new Group(p);
        Barrier barrier = new Barrier(group, p);
        SuperstepBarrier.LastArrival failing = (who, flags) -> {
            group.fail("the round failed at pid " + who, null);
            throw new IllegalStateException("round failed");
        };
        ConcurrentLinkedQueue<Throwable> thrown = new ConcurrentLinkedQueue<>();
        AtomicInteger released = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int pid = 0; pid < p; pid++) {
            int me = pid;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    barrier.await(me, 0, failing);
                    released.incrementAndGet();
                } catch (RuntimeException e) {
                    thrown.add(e);
                }
            }));
        }
        for (Thread t : threads) t.join();
        assertEquals(0, released.get(), "nobody leaves a round whose work failed");
        assertEquals(p, thrown.size());
        assertEquals(1, thrown.stream().filter(e -> e instanceof IllegalStateException).count(), "the last arriver's own exception");
        thrown.stream().filter(e -> !(e instanceof IllegalStateException)).forEach(e -> {
            assertInstanceOf(FatalException.class, e);
            assertTrue(e.getMessage().contains("the round failed at pid"), e.getMessage());
        });
    }

    @Test
    void theDisseminationBarrierHasNoLastArriver() {
        DisseminationBarrier d = new DisseminationBarrier(new Group(2), 2);
        assertTrue(!d.hasLastArriver());
        org.junit.jupiter.api.Assertions.assertThrows(UnsupportedOperationException.class, () -> d.await(0, 0, (w, f) -> 0));
    }
}
