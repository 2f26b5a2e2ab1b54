package org.lpf4j.bench.programs;

import java.util.concurrent.ForkJoinPool;

/**
 * A peer that runs its computation in its own {@link ForkJoinPool} of the given parallelism, so
 * that parallel streams and {@code ForkJoinTask}s inside it use exactly that many threads.
 */
abstract class PoolPeer implements Peer {
    private final ForkJoinPool pool;

    /** @param threads the parallelism */
    PoolPeer(int threads) {
        pool = new ForkJoinPool(threads);
    }

    /** The computation, run on a thread of the pool. */
    abstract void compute();

    @Override
    public final void run() {
        pool.submit(this::compute).join();
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
