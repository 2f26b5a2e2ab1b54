package org.lpf4j.tools.bench;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.spi.kit.WireCounts;
import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Times one {@link Workload} on the processes of one SPMD section; every process calls
 * {@link #measure} together.
 *
 * <p>Protocol (the same number of syncs on every process): reserve capacities and register a
 * control word; warm up in batches of 1, 2, 4, ... steps, after each of which process 0 decides
 * and broadcasts (one put per other process, one sync) either "continue" or, once the warm-up
 * time has passed and a batch ran while the JIT compiled nothing, the number of steps per repetition, chosen from its last batch so that a
 * repetition lasts about {@link Settings#repetitionNanos()}; then every process runs
 * {@link Settings#repetitions()} repetitions of that many steps. Process 0's time per step of
 * each repetition is the sample; the median is the result. Finally, after a sync, the step's
 * {@link Workload.Step#release()} and the control word's deregistration leave no slot registered.
 */
public final class Measurement {
    private Measurement() {}

    /** Largest warm-up batch; later batches repeat this size. */
    private static final int MAX_BATCH = 1 << 20;
    /**
     * After the warm-up time, warming goes on until a batch ran while the JIT compiled nothing, for
     * at most this many warm-up times more: on 2 cores a compiler thread takes a core from the
     * processes, and the cells measured while it did had their 99th percentile at about twice the
     * usual multiple of their median ({@code docs/performance.md}).
     */
    private static final long SETTLE_FACTOR = 10;

    /** Upper bound of steps per repetition (a guard against a clock that did not advance). */
    private static final long MAX_STEPS = 100_000_000L;

    /**
     * Measures {@code workload} on the calling process; collective over the section.
     *
     * @param ctx      this process's context (fresh: capacities are reserved here)
     * @param workload the row to time
     * @param settings warm-up and repetition lengths
     * @return this process's seconds per step for each repetition, in order
     */
    public static double[] measure(Context ctx, Workload workload, Settings settings) {
        return measure(ctx, workload, settings, null);
    }

    /**
     * {@link #measure(Context, Workload, Settings)}, also recording the duration of every timed
     * step at this process into {@code latencies} (if not null): one {@link System#nanoTime()} per
     * step, whose own cost (tens of nanoseconds) is then part of every figure; recording allocates nothing
     * (values above the histogram's range are clamped to it).
     *
     * @param ctx       this process's context
     * @param workload  the row to time
     * @param settings  warm-up and repetition lengths
     * @param latencies nanoseconds per step, or null to time whole repetitions only
     * @return this process's seconds per step for each repetition, in order
     */
    public static double[] measure(Context ctx, Workload workload, Settings settings, Histogram latencies) {
        return measure(ctx, workload, settings, latencies, null);
    }

    /**
     * {@link #measure(Context, Workload, Settings, Histogram)}, also giving what this process sent
     * per timed step (its engine's {@link WireCounts}, if it counts) in {@code sentPerStep} (if
     * not null, {@link WireCounts#COUNTERS} + 1 long): each counter's mean per step, then the
     * connections open at the end; all -1 when the engine counts nothing (one JVM).
     *
     * @param ctx         this process's context
     * @param workload    the row to time
     * @param settings    warm-up and repetition lengths
     * @param latencies   nanoseconds per step, or null to time whole repetitions only
     * @param sentPerStep receives the counts per step, or null
     * @return this process's seconds per step for each repetition, in order
     */
    public static double[] measure(Context ctx, Workload workload, Settings settings, Histogram latencies, double[] sentPerStep) {
        int p = ctx.nprocs();
        boolean leader = ctx.pid() == 0;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment control = arena.allocate(Long.BYTES, Long.BYTES);
            ctx.resizeMemoryRegister(workload.registrations() + 1);
            ctx.resizeMessageQueue(Math.max(workload.messages(p), p - 1L));
            ctx.sync();
            Memslot controlSlot = ctx.registerGlobal(control);
            Workload.Step step = workload.prepare(ctx, arena);
            ctx.sync();

            long warmupEnd = System.nanoTime() + settings.warmupNanos();
            long settleEnd = warmupEnd + SETTLE_FACTOR * settings.warmupNanos();
            long stepsPerRepetition = 0;
            for (int batch = 1; stepsPerRepetition == 0; batch = Math.min(2 * batch, MAX_BATCH)) {
                long compiled = leader ? compilationMillis() : 0;
                long t0 = System.nanoTime();
                for (int i = 0; i < batch; i++) step.run();
                long t1 = System.nanoTime();
                long decision = 0;
                if (leader && warmedUp(t1, warmupEnd, settleEnd, compilationMillis() == compiled)) {
                    double perStep = Math.max(1.0, (double) (t1 - t0) / batch);
                    decision = Math.clamp((long) Math.ceil(settings.repetitionNanos() / perStep), 1L, MAX_STEPS);
                }
                stepsPerRepetition = broadcast(ctx, controlSlot, control, decision);
            }

            double[] samples = new double[settings.repetitions()];
            WireCounts wire = sentPerStep == null ? null : WireCounts.of(ctx);
            long[] before = new long[WireCounts.COUNTERS];
            if (wire != null) wire.read(before);
            for (int r = 0; r < samples.length; r++) {
                long t0 = System.nanoTime();
                if (latencies == null) {
                    for (long i = 0; i < stepsPerRepetition; i++) step.run();
                    samples[r] = (System.nanoTime() - t0) / 1e9 / stepsPerRepetition;
                } else {
                    long highest = latencies.getHighestTrackableValue(), previous = t0;
                    for (long i = 0; i < stepsPerRepetition; i++) {
                        step.run();
                        long now = System.nanoTime();
                        latencies.recordValue(Math.min(now - previous, highest));
                        previous = now;
                    }
                    samples[r] = (previous - t0) / 1e9 / stepsPerRepetition;
                }
            }
            if (sentPerStep != null) perStep(wire, before, (double) stepsPerRepetition * samples.length, sentPerStep);
            ctx.sync(); // nobody touches this process's memory any more: the arena may close
            step.release();
            ctx.deregister(controlSlot);
            return samples;
        }
    }

    /** Fills {@code into} with the counts since {@code before} per step and the connections now; -1 where not counted. */
    private static void perStep(WireCounts wire, long[] before, double steps, double[] into) {
        java.util.Arrays.fill(into, -1);
        if (wire == null) return;
        for (int i = 0; i < WireCounts.COUNTERS; i++) {
            long now = wire.get(i);
            if (now >= 0) into[i] = (now - before[i]) / steps;
        }
        into[WireCounts.COUNTERS] = wire.connections();
    }

    /**
     * The leader's warm-up rule.
     *
     * @param now       the end of the last warm-up batch
     * @param warmupEnd the end of the warm-up time
     * @param settleEnd the latest end of the warm-up
     * @param jitQuiet  whether the JIT compiled nothing during the last batch
     * @return whether the warm-up is over
     */
    static boolean warmedUp(long now, long warmupEnd, long settleEnd, boolean jitQuiet) {
        return now >= warmupEnd && (jitQuiet || now >= settleEnd);
    }

    /** @return the JIT's total compilation time in this JVM so far, ms (-1 if the JVM does not say) */
    private static long compilationMillis() {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    /** Process 0's {@code value} becomes every process's return value; one sync. */
    private static long broadcast(Context ctx, Memslot slot, MemorySegment control, long value) {
        if (ctx.pid() == 0) {
            control.set(ValueLayout.JAVA_LONG, 0, value);
            for (int q = 1; q < ctx.nprocs(); q++) ctx.put(slot, 0, q, slot, 0, Long.BYTES);
        }
        ctx.sync();
        return control.get(ValueLayout.JAVA_LONG, 0);
    }

    /**
     * @param samples measured values (not modified)
     * @return their median (the mean of the two middle values for an even count)
     */
    public static double median(double[] samples) {
        if (samples.length == 0) throw new IllegalArgumentException("median of no samples");
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
