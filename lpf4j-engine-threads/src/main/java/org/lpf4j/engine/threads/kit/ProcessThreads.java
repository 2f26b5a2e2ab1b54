package org.lpf4j.engine.threads.kit;

/**
 * Ending a section's process threads, shared by every engine that runs processes as threads.
 * Engines only.
 */
public final class ProcessThreads {
    private ProcessThreads() {}

    /**
     * Waits until every thread has ended, even if this thread is interrupted meanwhile (a section
     * must not return while its processes still run); the interrupt is restored afterwards.
     * Cost: the longest thread's remaining run time.
     *
     * @param threads the threads; null entries (never started) are skipped
     */
    public static void joinAll(Thread[] threads) {
        boolean interrupted = false;
        for (Thread t : threads) {
            if (t == null) continue;
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
