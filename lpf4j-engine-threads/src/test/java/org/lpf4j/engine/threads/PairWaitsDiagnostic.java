package org.lpf4j.engine.threads;

import org.lpf4j.Lpf;
import org.lpf4j.engine.threads.group.Waiting;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Not a test: a diagnostic main for the p = 2 slow mode (issue 14). Two processes run empty
 * syncs in step, then a slow phase (each pid in turn computes 1 ms in 8 supersteps, which
 * drives both spin budgets to their floor), then empty syncs again. For each half it prints,
 * per pid: sync time percentiles, in which phase its waits ended ({@link Waiting#ended}), and
 * the CPU it ran on at 10 points (Linux: /proc/thread-self/stat), which shows whether the two
 * processes share one core.
 *
 * <p>Run (after {@code mvn -pl lpf4j-engine-threads -am test-compile}), e.g. for a few rounds:
 * {@code java -cp lpf4j-engine-threads/target/classes:lpf4j-engine-threads/target/test-classes:lpf4j-core/target/classes
 * org.lpf4j.engine.threads.PairWaitsDiagnostic 3}
 */
public final class PairWaitsDiagnostic {
    private PairWaitsDiagnostic() {}

    private static final int SYNCS = 20_000;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        for (int r = 0; r < rounds; r++) {
            Lpf.root("threads").exec(2, ctx -> {
                Waiting w = ((ThreadsContext) ctx).team.barrier.waiting();
                int me = ctx.pid();
                long[] d = new long[SYNCS];
                for (int i = 0; i < 50_000; i++) ctx.sync();
                for (int half = 0; half < 2; half++) {
                    long s0 = w.ended(me, Waiting.SPINNING), y0 = w.ended(me, Waiting.YIELDING), k0 = w.ended(me, Waiting.PARKED);
                    StringBuilder cpus = new StringBuilder();
                    for (int i = 0; i < SYNCS; i++) {
                        long t0 = System.nanoTime();
                        ctx.sync();
                        d[i] = System.nanoTime() - t0;
                        if (i % (SYNCS / 10) == SYNCS / 10 - 1) cpus.append(cpu()).append(' ');
                    }
                    long[] s = d.clone();
                    Arrays.sort(s);
                    String line = String.format("pid %d %-10s sync ns p10 %d p50 %d p90 %d p99 %d; waits ended spinning/yielding/parked %d/%d/%d; cpus %s",
                            me, half == 0 ? "in step:" : "after slow:", s[SYNCS / 10], s[SYNCS / 2], s[9 * SYNCS / 10], s[99 * SYNCS / 100],
                            w.ended(me, Waiting.SPINNING) - s0, w.ended(me, Waiting.YIELDING) - y0, w.ended(me, Waiting.PARKED) - k0, cpus);
                    synchronized (PairWaitsDiagnostic.class) { System.out.println(line); }
                    if (half == 0) {
                        for (int busy = 0; busy < 2; busy++) {
                            for (int k = 0; k < 8; k++) {
                                if (me == busy) compute(1_000_000);
                                ctx.sync();
                            }
                        }
                    }
                }
            });
        }
    }

    private static void compute(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) Thread.onSpinWait();
    }

    /** @return the CPU the calling thread runs on, or "?" where /proc does not tell */
    private static String cpu() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[36]; // field 39, "processor"
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
