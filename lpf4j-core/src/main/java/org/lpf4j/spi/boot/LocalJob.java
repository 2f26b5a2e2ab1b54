package org.lpf4j.spi.boot;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A job whose processes all live in this JVM (the threads engine's processes, tests): the
 * {@code local} boot module. Each rank opens its {@link #session(int) session} once, from any
 * thread; the sessions meet in one {@link FenceCoordinator}. The job's timer thread stops when
 * every session is closed (or on {@link #close()}).
 *
 * <p>Costs: put and get copy the value; a collect-data fence snapshots each participant's
 * committed map once and hands the same snapshot to all participants.
 */
public final class LocalJob implements AutoCloseable {
    private final FenceCoordinator coordinator;
    private final AtomicReferenceArray<Session> sessions;

    /** @param size the number of processes, ≥ 1 */
    public LocalJob(int size) {
        this.coordinator = new FenceCoordinator("local job of " + size, size);
        this.sessions = new AtomicReferenceArray<>(size);
    }

    /** @return the number of processes */
    public int size() { return coordinator.size(); }

    /**
     * @param rank a rank of this job
     * @return its session
     * @throws IllegalStateException if that rank's session was opened already
     */
    public BootSession session(int rank) {
        Session s = new Session(rank, size());
        if (!sessions.compareAndSet(rank, null, s)) {
            throw new IllegalStateException("LocalJob.session(" + rank + "): opened already");
        }
        coordinator.join(rank, s);
        return s;
    }

    /** Stops the timer; sessions still open see their fences time out. */
    @Override
    public void close() { coordinator.close(); }

    private final class Session extends AbstractBootSession implements FenceCoordinator.Participant {
        private CompletableFuture<Map<Integer, Map<String, byte[]>>> answer;
        private long answerSeq;

        Session(int rank, int size) { super(rank, size); }

        @Override public String module() { return "local"; }

        @Override protected void publish(Map<String, byte[]> batch) { coordinator.commit(rank(), batch); }

        @Override
        protected CompletableFuture<Map<Integer, Map<String, byte[]>>> startFence(long seq, long instance, FenceOptions options,
                                                                                 int[] participants, Duration timeout) {
            CompletableFuture<Map<Integer, Map<String, byte[]>>> f = new CompletableFuture<>();
            synchronized (coordinator) {
                answer = f;
                answerSeq = seq;
                coordinator.arrive(rank(), seq, instance, options.ranks(), options.collectData(), timeout.toMillis());
            }
            return f;
        }

        // Called under the coordinator's lock.
        @Override
        public void completed(long seq, Map<Integer, Map<String, byte[]>> data) {
            if (seq == answerSeq) answer.complete(data);
        }

        @Override
        public void failed(long seq, BootException failure) {
            if (seq == answerSeq) answer.completeExceptionally(failure);
        }

        @Override protected byte[] fetch(int owner, String key, long timeoutNanos) { return coordinator.value(owner, key, timeoutNanos); }

        @Override
        protected void release() {
            coordinator.leave(rank(), "closed its session");
            if (coordinator.allLeft()) coordinator.close();
        }
    }
}
