package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Spmd;

import java.util.Arrays;

/**
 * Wraps an SPMD program so that each process runs it on a {@link TimedContext} and records its
 * supersteps and times; after the section has ended, {@link #summary()} describes it.
 *
 * <p>Each process writes only its own array entries; the engine's end of the section (the
 * {@code exec} returning) makes them visible to the caller.
 */
final class SectionTiming {
    private final int p;
    private final long[] syncs;
    private final long[] sectionNanos;
    private final long[] syncNanos;
    private int actualP;

    /** @param p the number of processes asked for (the section may get fewer) */
    SectionTiming(int p) {
        this.p = p;
        this.syncs = new long[p];
        this.sectionNanos = new long[p];
        this.syncNanos = new long[p];
    }

    /**
     * @param program the user's SPMD program
     * @return an SPMD function that runs {@code program} on a timed context of each process and
     *         records into this object; serializable if {@code program} is (a copy in another
     *         JVM runs the program without recording)
     */
    Spmd wrap(Spmd program) {
        return new Timed(program, this);
    }

    private void record(int pid, int nprocs, long nanos, TimedContext timed) {
        if (pid == 0) actualP = nprocs;
        if (pid >= p) return;
        sectionNanos[pid] = nanos;
        syncs[pid] = timed.syncs();
        syncNanos[pid] = timed.syncNanos();
    }

    /** The wrapping SPMD function; the sink is not shipped to other JVMs. */
    private static final class Timed implements Spmd {
        private static final long serialVersionUID = 1L;
        private final Spmd program;
        private final transient SectionTiming sink;

        Timed(Spmd program, SectionTiming sink) {
            this.program = program;
            this.sink = sink;
        }

        @Override
        public void run(Context ctx) throws Exception {
            TimedContext timed = new TimedContext(ctx);
            long t0 = System.nanoTime();
            try {
                program.run(timed);
            } finally {
                if (sink != null) sink.record(ctx.pid(), ctx.nprocs(), System.nanoTime() - t0, timed);
            }
        }
    }

    /** @return the number of processes the section ran with (0 before it ran) */
    int processes() { return actualP; }

    /** @return supersteps (syncs) of process 0 */
    long supersteps() { return syncs[0]; }

    /** @return the section's duration, the longest of its processes, in nanoseconds */
    long sectionNanos() { return Arrays.stream(sectionNanos, 0, Math.min(p, Math.max(1, actualP))).max().orElse(0); }

    /**
     * @return e.g. {@code "p=4  supersteps=3  time=1.234 ms  per superstep=411.3 µs  (in sync: 20.1 µs)"};
     *         per-superstep figures are the section time, and pid 0's sync time, over its syncs
     */
    String summary() {
        long steps = supersteps();
        double total = sectionNanos();
        StringBuilder b = new StringBuilder(String.format("p=%d  supersteps=%d  time=%.3f ms", actualP, steps, total / 1e6));
        if (steps > 0) {
            b.append(String.format("  per superstep=%.3f µs  (in sync: %.3f µs)",
                    total / steps / 1e3, (double) syncNanos[0] / steps / 1e3));
        }
        for (int q = 1; q < actualP && q < p; q++) {
            if (syncs[q] != steps) {
                b.append(String.format("%nwarning: pid %d made %d syncs, pid 0 made %d", q, syncs[q], steps));
                break;
            }
        }
        return b.toString();
    }
}
