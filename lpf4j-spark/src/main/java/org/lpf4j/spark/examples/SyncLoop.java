package org.lpf4j.spark.examples;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import org.lpf4j.Spmd;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The empty-sync loop that {@link SyncGap} times inside a Spark barrier stage and, with
 * {@link #main}, under {@code lpf run} ({@code bin/lpf run --engine net -p 2 --class-path
 * lpf4j-spark/target/classes org.lpf4j.spark.examples.SyncLoop warm reps syncs}): no Spark class,
 * so that it loads without Spark. Besides the time it reports what the waiting thread did per
 * sync: CPU time, and (Linux) its voluntary context switches (it blocked) and involuntary ones
 * (another thread took its core).
 */
public final class SyncLoop {
    private SyncLoop() {}

    /** Warm-up syncs enough for the JIT to compile the sync path (as the anchors' LpfBench warms up). */
    public static final int WARM_UP = 20_000;

    /**
     * What one process measured.
     *
     * @param medianMicros median over the repetitions of the mean sync time, µs
     * @param minMicros    the fastest repetition's mean, µs
     * @param cpuMicros    the thread's CPU time per sync, µs (all repetitions)
     * @param voluntary    voluntary context switches per sync (the thread blocked), or -1 if unknown
     * @param involuntary  involuntary context switches per sync (the thread was preempted), or -1
     * @param othersCores  the CPU time of this JVM's other threads (JIT, GC, the host framework's,
     *                     another process's in the same JVM) over the wall time: cores they kept busy
     */
    public record Figures(double medianMicros, double minMicros, double cpuMicros, double voluntary, double involuntary,
                          double othersCores) implements java.io.Serializable {
        @Override
        public String toString() {
            return String.format("sync_us %.2f min %.2f cpu_us %.2f vcsw %.3f ivcsw %.3f others_cores %.3f", medianMicros, minMicros,
                    cpuMicros, voluntary, involuntary, othersCores);
        }
    }

    /**
     * Times {@code reps} repetitions of {@code syncs} empty syncs after {@code warm} unmeasured
     * ones. Collective.
     */
    public static Figures time(Context ctx, int warm, int reps, int syncs) {
        for (int i = 0; i < warm; i++) ctx.sync();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double[] t = new double[reps];
        long[] cs0 = switches();
        long cpu0 = mx.getCurrentThreadCpuTime(), jvm0 = processCpuNanos(), wall0 = System.nanoTime();
        for (int r = 0; r < reps; r++) {
            long a = System.nanoTime();
            for (int i = 0; i < syncs; i++) ctx.sync();
            t[r] = (System.nanoTime() - a) / 1e3 / syncs;
        }
        long cpu1 = mx.getCurrentThreadCpuTime(), jvm1 = processCpuNanos(), wall1 = System.nanoTime();
        long[] cs1 = switches();
        double n = (double) reps * syncs;
        double[] s = t.clone();
        Arrays.sort(s);
        return new Figures(s[reps / 2], s[0], (cpu1 - cpu0) / 1e3 / n, cs0 == null || cs1 == null ? -1 : (cs1[0] - cs0[0]) / n,
                cs0 == null || cs1 == null ? -1 : (cs1[1] - cs0[1]) / n, (double) (jvm1 - jvm0 - (cpu1 - cpu0)) / (wall1 - wall0));
    }

    /** @return the CPU time of this JVM's threads so far, ns */
    public static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** @return this thread's {voluntary, involuntary} context switches so far, or null where /proc does not say */
    private static long[] switches() {
        try {
            long v = -1, iv = -1;
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) v = Long.parseLong(line.substring(24).strip());
                if (line.startsWith("nonvoluntary_ctxt_switches:")) iv = Long.parseLong(line.substring(27).strip());
            }
            return v < 0 || iv < 0 ? null : new long[]{v, iv};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** @return what this JVM runs with that bears on a sync: cores, JVM options */
    public static String jvm() {
        return "cpus " + Runtime.getRuntime().availableProcessors() + " pid " + ProcessHandle.current().pid() + " args "
                + ManagementFactory.getRuntimeMXBean().getInputArguments();
    }

    /**
     * Under {@code lpf run -p N}: N processes ({@link Lpf#MAX_P}), and prints every process's figures.
     *
     * @param args warm-up syncs, repetitions, syncs per repetition
     */
    public static void main(String[] args) {
        int warm = Integer.parseInt(args[0]), reps = Integer.parseInt(args[1]), syncs = Integer.parseInt(args[2]);
        Lpf.root().exec(Lpf.MAX_P, (Spmd & java.io.Serializable) ctx -> {
            Figures f = time(ctx, warm, reps, syncs);
            System.out.println("lpf-run pid " + ctx.pid() + " " + f + (ctx.pid() == 0 ? " | " + jvm() : ""));
        });
    }
}
