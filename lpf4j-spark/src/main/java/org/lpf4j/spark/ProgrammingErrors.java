package org.lpf4j.spark;

import org.apache.spark.ExceptionFailure;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fails a job at once when a task of a {@link BspStage} reports a programming error
 * ({@link BspStageException#isProgrammingError()}), instead of letting Spark run the barrier stage
 * again: another attempt would fail alike. Spark retries every failed barrier stage that ends in a
 * shuffle and has no per-exception rule, so a listener on the driver cancels the stage (and with
 * it its jobs) when it hears of the task's failure; Spark schedules the retry 200 ms after the
 * failure, so the listener is normally first (if not, the retry's tasks are killed as they start).
 * One listener per {@link SparkContext}; it costs a class-name comparison per failed task.
 */
final class ProgrammingErrors extends SparkListener {
    private static final Set<SparkContext> WATCHED = Collections.newSetFromMap(new WeakHashMap<>());

    private final SparkContext sc;
    private final Set<Integer> cancelled = ConcurrentHashMap.newKeySet();

    private ProgrammingErrors(SparkContext sc) { this.sc = sc; }

    /** Adds the listener to {@code sc}, once. */
    static void watch(SparkContext sc) {
        synchronized (WATCHED) {
            if (WATCHED.add(sc)) sc.addSparkListener(new ProgrammingErrors(sc));
        }
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
        if (!(end.reason() instanceof ExceptionFailure f)) return;
        if (!f.className().equals(BspStageException.class.getName()) || !BspStageException.isProgrammingError(f.description())) return;
        if (cancelled.add(end.stageId())) {
            sc.cancelStage(end.stageId(), "a BspStage process made a programming error, which every attempt would repeat"
                    + " (not retried): " + f.description());
        }
    }
}
