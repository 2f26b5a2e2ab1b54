package org.lpf4j.spark;

import org.apache.spark.TaskContext;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Runs a {@code BarrierTaskContext} call ({@code allGather}) without Spark's one-second poll.
 *
 * <p>Spark 4.2's {@code BarrierTaskContext.runBarrier} asks the driver and then, until the answer
 * has come, sleeps 1 s and looks again ({@code Thread.sleep(1000)}, catching the interrupt and
 * only checking whether the task was killed): every barrier and {@code allGather} takes about a
 * second even when all tasks arrive within milliseconds. While the call runs, a watcher thread
 * looks at the calling thread every {@value #LOOK_MICROS} µs and interrupts it only while it sleeps
 * in that loop (its stack: {@code Thread.sleep} called from {@code runBarrier}, nothing between),
 * so that it looks at the answer again at once.
 *
 * <p>An interrupt can still land just after the sleep ended (the thread is then in
 * {@code runBarrier}'s logging, which does no interruptible I/O); once the call returned and the
 * watcher has stopped, the flag is cleared unless Spark killed the task. A Spark version without
 * that loop is never interrupted: it runs as it would alone.
 *
 * <p>Cost: one short-lived daemon thread per call, and one {@code Thread.getStackTrace} of the
 * caller per look while it sleeps.
 */
final class BarrierWake {
    private BarrierWake() {}

    /** How often the watcher looks at the waiting thread. */
    static final long LOOK_MICROS = 1_000;

    /**
     * @param task the calling thread's task (a killed task keeps its interrupt)
     * @param call a call of the task's barrier context, made on this thread
     * @return what {@code call} returned
     */
    static <T> T call(TaskContext task, Supplier<T> call) {
        Thread caller = Thread.currentThread();
        Watcher watcher = new Watcher(caller);
        Thread thread = new Thread(watcher, "lpf4j-barrier-wake");
        thread.setDaemon(true);
        thread.start();
        try {
            return call.get();
        } finally {
            watcher.stop();
            // Ours, unless Spark killed the task: then the interrupt is put back (checked after clearing, so none is lost).
            if (Thread.interrupted() && task != null && task.isInterrupted()) Thread.currentThread().interrupt();
        }
    }

    /** @return whether {@code frames} are those of a thread asleep in {@code runBarrier}'s poll */
    static boolean sleepsInBarrierPoll(StackTraceElement[] frames) {
        boolean sleeping = false;
        for (StackTraceElement f : frames) {
            String c = f.getClassName();
            if (c.equals("java.lang.Thread") || c.startsWith("jdk.internal.")) {
                sleeping |= f.getMethodName().startsWith("sleep");
                continue;
            }
            return sleeping && c.equals("org.apache.spark.BarrierTaskContext") && f.getMethodName().equals("runBarrier");
        }
        return false;
    }

    /** Interrupts the caller while it sleeps in the poll, until stopped. */
    private static final class Watcher implements Runnable {
        private final Thread caller;
        private boolean stopped;

        Watcher(Thread caller) { this.caller = caller; }

        @Override
        public void run() {
            while (true) {
                LockSupport.parkNanos(LOOK_MICROS * 1_000);
                synchronized (this) {
                    if (stopped) return;
                    if (caller.getState() == Thread.State.TIMED_WAITING && sleepsInBarrierPoll(caller.getStackTrace())) {
                        caller.interrupt();
                    }
                }
            }
        }

        /** After this returns, the watcher interrupts nothing more. */
        synchronized void stop() { stopped = true; }
    }
}
