package org.lpf4j.engine.threads.group;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lpf4j.FatalException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The barrier's flag bits as {@link SuperstepBarrier} lays them out: the group's flags are distinct
 * bits filling the low {@link SuperstepBarrier#GROUP_FLAG_BITS}, the engine's bits start above them,
 * and both barriers hand every process the OR of every process's group flags, round after round (a
 * dissemination signal that packed the flags narrower or wider than the layout would lose a flag
 * or mistake a flag for the round).
 */
@Timeout(60)
class BarrierBitsTest {
    private static final int ROUNDS = 200;

    private static final class Group implements Participants {
        private final ThreadsPolicy policy;

        Group(int p) { policy = ThreadsPolicy.forProcesses(p, -1, -1); }

        @Override public ThreadsPolicy policy() { return policy; }

        @Override public String abandonment(int pid, long round) { return null; }

        @Override public void fail(String reason, Throwable cause) { }

        @Override public FatalException fatal(int pid) { return new FatalException("failed", null); }

        @Override public Thread thread(int pid) { return null; }
    }

    @Test
    void theKitFlagsFillTheLowBitsAndTheEngineBitsStartAbove() {
        assertEquals(0, SuperstepBarrier.QUEUED & SuperstepBarrier.UNBUFFERED, "distinct flags");
        assertEquals(SuperstepBarrier.QUEUED | SuperstepBarrier.UNBUFFERED, SuperstepBarrier.GROUP_FLAGS);
        assertEquals((1 << SuperstepBarrier.GROUP_FLAG_BITS) - 1, SuperstepBarrier.GROUP_FLAGS);
        assertTrue(SuperstepBarrier.FIRST_ENGINE_BIT > SuperstepBarrier.GROUP_FLAGS, "engine bits above the group's");
        assertEquals(1, Integer.bitCount(SuperstepBarrier.FIRST_ENGINE_BIT));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void bothBarriersOrEveryKitFlagOfEveryProcess(int p) throws Exception {
        for (SuperstepBarrier barrier : new SuperstepBarrier[] {new Barrier(new Group(p), p), new DisseminationBarrier(new Group(p), p)}) {
            ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int pid = 0; pid < p; pid++) {
                int me = pid;
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int r = 0; r < ROUNDS; r++) {
                        // Round r: process r % p sets the flags r / p % 4 (every combination in turn).
                        int mine = me == r % p ? r / p % 4 : 0;
                        int all = barrier.await(me, mine);
                        int expected = r / p % 4;
                        if (all != expected) wrong.add(barrier.getClass().getSimpleName() + " round " + r + ": pid " + me + " got " + all + ", expected " + expected);
                    }
                }));
            }
            for (Thread t : threads) t.join();
            assertTrue(wrong.isEmpty(), () -> wrong.size() + " violations, e.g. " + wrong.peek());
        }
    }
}
