package org.lpf4j.tools.bench;

import org.lpf4j.Context;
import org.lpf4j.Memslot;
import org.lpf4j.Spmd;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.Engines;
import org.lpf4j.spi.RawBaseline;
import org.lpf4j.spi.kit.WireCounts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The side-by-side benchmark of an engine whose processes come from its launcher and that offers
 * its {@linkplain EngineProvider#rawBaseline() raw transport} ({@code lpf bench --engine mpi}
 * runs it under {@code mpirun}): for p = 2 and 4 (as far as the job has processes), the engine's
 * empty sync, 8-byte put + sync, 1 MiB put + sync and a 64 KiB total exchange (each process puts
 * 64 KiB / p to every process), beside the transport used directly on the same processes: its
 * barrier, its one-sided put of 1 MiB + completion (and, for information, its two-sided exchange
 * of 1 MiB, which is how the MPI engine moves a large put). Every workload is warmed up for 0.6 s
 * of work (pausing now and then so that the JIT gets the cores) and until the JIT is quiet, then
 * timed in batches of about 25 ms (pid 0's clock); an engine workload and its raw counterpart
 * alternate batch by batch, so their ratio compares the two under the same conditions. Prints the
 * medians of {@code reps} batches and the ratios. Costs about 5 s per p ({@code --quick}: a tenth).
 *
 * <p>Arguments (what {@code lpf bench} passes): {@code --engine NAME [--reps R] [--procs 2,4]
 * [--quick]} (default 9 repetitions, p = 2 and 4; {@code --quick}: a tenth of the warm-up and batch
 * time). Each p runs as its own {@code exec} on the first p processes of the job. It runs on the
 * engine's own root, without the debug layer (the raw transport needs the engine's contexts).
 */
public final class LaunchedBench {
    private LaunchedBench() {}

    static final long MIB = 1 << 20, EXCHANGE = 64 * 1024, PAGE = 4096;

    /** One p: every measurement, on every process of the section. */
    static final class Cells implements Spmd {
        private static final long serialVersionUID = 1L;
        static volatile double[] last;
        /** Pid 0's counts of one step of each engine row (empty sync, 8-byte put, 1 MiB put, total exchange), or null if not counted. */
        static volatile long[][] lastSent;
        private final String engine;
        private final int reps, divisor;

        Cells(String engine, int reps, int divisor) {
            this.engine = engine;
            this.reps = reps;
            this.divisor = divisor;
        }

        @Override
        public void run(Context ctx) {
            int s = ctx.pid(), p = ctx.nprocs(), next = (s + 1) % p;
            ctx.resizeMemoryRegister(4);
            ctx.resizeMessageQueue(2L * p + 2);
            ctx.sync();
            try (Arena a = Arena.ofShared(); RawBaseline.Section raw = Engines.byName(engine).rawBaseline().orElseThrow().open(ctx)) {
                MemorySegment src = a.allocate(MIB, PAGE), dst = a.allocate(MIB * p, PAGE);
                MemorySegment ex = a.allocate(EXCHANGE, PAGE), exIn = a.allocate(EXCHANGE, PAGE);
                Memslot srcSlot = ctx.registerGlobal(src), dstSlot = ctx.registerGlobal(dst);
                Memslot exSlot = ctx.registerGlobal(ex), exInSlot = ctx.registerGlobal(exIn);
                ctx.sync();
                Batches b = new Batches(raw, s, reps, divisor);
                long chunk = EXCHANGE / p;
                double[] r = new double[8];
                double[] sync = b.alternating(ctx::sync, raw::barrier);
                r[0] = sync[0];
                r[4] = sync[1];
                r[1] = b.single(() -> {
                    ctx.put(srcSlot, 0, next, dstSlot, 0, 8);
                    ctx.sync();
                });
                int prev = (s + p - 1) % p;
                // The window exists only for the cell that uses it, so that the other cells run as a
                // program without one-sided transfers does (an open MPI window may add work to MPI's progress).
                try (RawBaseline.Window win = raw.window(dst)) {
                    double[] big = b.alternating(() -> {
                        ctx.put(srcSlot, 0, next, dstSlot, MIB * s, MIB);
                        ctx.sync();
                    }, () -> {
                        win.put(src, MIB, next, MIB * s);
                        win.complete();
                    }, () -> raw.sendReceive(src, next, dst, prev, MIB));
                    r[2] = big[0];
                    r[5] = big[1];
                    r[7] = big[2];
                }
                r[3] = b.single(() -> {
                    for (int q = 0; q < p; q++) ctx.put(exSlot, chunk * q, q, exInSlot, chunk * s, chunk);
                    ctx.sync();
                });
                r[6] = p;
                // One more step of each engine row, counted: counts are exact, so one step says what every step sends.
                WireCounts wire = WireCounts.of(ctx);
                long[][] sent = wire == null ? null : new long[][] {
                        sentBy(wire, ctx::sync),
                        sentBy(wire, () -> {
                            ctx.put(srcSlot, 0, next, dstSlot, 0, 8);
                            ctx.sync();
                        }),
                        sentBy(wire, () -> {
                            ctx.put(srcSlot, 0, next, dstSlot, MIB * s, MIB);
                            ctx.sync();
                        }),
                        sentBy(wire, () -> {
                            for (int q = 0; q < p; q++) ctx.put(exSlot, chunk * q, q, exInSlot, chunk * s, chunk);
                            ctx.sync();
                        })};
                ctx.deregister(srcSlot);
                ctx.deregister(dstSlot);
                ctx.deregister(exSlot);
                ctx.deregister(exInSlot);
                if (s == 0) {
                    last = r;
                    lastSent = sent;
                }
            }
        }
    }

    /** @return what {@code step} sent ({@link WireCounts}'s counters, -1 where not counted), then the connections open */
    static long[] sentBy(WireCounts wire, Runnable step) {
        long[] before = new long[WireCounts.COUNTERS], after = new long[WireCounts.COUNTERS + 1];
        wire.read(before);
        step.run();
        wire.read(after);
        for (int i = 0; i < WireCounts.COUNTERS; i++) if (after[i] >= 0) after[i] -= before[i];
        after[WireCounts.COUNTERS] = wire.connections();
        return after;
    }

    /** @return e.g. {@code 1+2 msgs, 8+72 B}: data + meta messages and payload + meta-data bytes ({@code ?}: not visible) */
    static String sentText(long[] c) {
        String meta = c[WireCounts.META_MESSAGES] < 0 ? "?" : Long.toString(c[WireCounts.META_MESSAGES]);
        String metaBytes = c[WireCounts.META_BYTES] < 0 ? c[WireCounts.HEADER_BYTES] + "+?"
                : Long.toString(c[WireCounts.HEADER_BYTES] + c[WireCounts.META_BYTES]);
        return c[WireCounts.DATA_MESSAGES] + "+" + meta + " msgs, " + c[WireCounts.PAYLOAD_BYTES] + "+" + metaBytes + " B";
    }

    /**
     * Timed batches that every process of the section runs the same number of times: pid 0 decides
     * (how long to warm up, how many steps a batch has) and broadcasts, so no process leaves a
     * collective loop early. Control goes through the raw transport, so the engine's state is
     * not touched between batches. A pair of workloads (the engine's and the raw one) is measured in
     * alternating batches, so that both see the same machine: on 2 cores a JIT compilation, a page
     * fault storm on fresh buffers or both processes landing on one CPU can slow a whole stretch of
     * a run, which would otherwise fall on one side of a ratio only.
     */
    static final class Batches {
        /** Warm-up per workload (a fresh 1 MiB buffer runs slow for a while), and the length of one batch. */
        private static final long WARM_NANOS = 600_000_000L, BATCH_NANOS = 25_000_000L;
        private final RawBaseline.Section raw;
        private final int pid, reps, divisor;

        Batches(RawBaseline.Section raw, int pid, int reps, int divisor) {
            this.raw = raw;
            this.pid = pid;
            this.reps = reps;
            this.divisor = divisor;
        }

        /** @return the median seconds per step of {@code op} */
        double single(Runnable op) {
            int steps = warm(op);
            double[] t = new double[reps];
            for (int k = 0; k < reps; k++) t[k] = batch(op, steps);
            return median(t);
        }

        /** @return the median seconds per step of each of {@code ops}, measured in batches that take turns (the first op first in even rounds, last in odd ones) */
        double[] alternating(Runnable... ops) {
            int[] steps = new int[ops.length];
            for (int j = 0; j < ops.length; j++) steps[j] = warm(ops[j]);
            double[][] t = new double[ops.length][reps];
            for (int k = 0; k < reps; k++) {
                for (int i = 0; i < ops.length; i++) {
                    int j = k % 2 == 0 ? i : ops.length - 1 - i;
                    t[j][k] = batch(ops[j], steps[j]);
                }
            }
            double[] medians = new double[ops.length];
            for (int j = 0; j < ops.length; j++) medians[j] = median(t[j]);
            return medians;
        }

        /**
         * Runs {@code op} in growing chunks for pid 0's warm-up time (of work, with pauses for the JIT
         * between, see {@link #nap}), then in whole batches until,
         * on every process, a batch ran with no JIT compilation going on and within
         * {@value #STABLE_PERCENT}% of the batch before (at most {@link #SETTLE_NANOS} more). The
         * JIT compiles a workload's path only when its compiler threads get a core, and with every
         * process polling inside the transport on 2 cores that took up to 2 s, in which a cell ran several
         * times slower than later in the same JVM ({@code docs/performance.md}).
         *
         * @return the steps of one batch, the same on every process
         */
        private int warm(Runnable op) {
            long worked = 0, done = 0, sinceNap = 0;
            int steps;
            for (int chunk = 1; ; chunk = Math.min(chunk * 2, 4096)) {
                long c0 = System.nanoTime();
                for (int i = 0; i < chunk; i++) op.run();
                done += chunk;
                long took = System.nanoTime() - c0;
                worked += took;
                sinceNap += took;
                long decision = agree(worked >= WARM_NANOS / divisor ? WARM : sinceNap >= NAP_EVERY_NANOS ? NAP : 0);
                if (decision == WARM) {
                    steps = (int) agree(Math.max(1, Math.min(1 << 24, BATCH_NANOS / divisor * done / Math.max(1, worked))));
                    break;
                }
                if (decision == NAP) {
                    nap();
                    sinceNap = 0;
                }
            }
            long settleEnd = System.nanoTime() + SETTLE_NANOS / divisor;
            double previous = batch(op, steps);
            while (true) {
                nap();
                long compiling = compilationMillis();
                double t = batch(op, steps);
                boolean settled = compilationMillis() == compiling
                        && Math.abs(t - previous) * 100 <= STABLE_PERCENT * Math.min(t, previous);
                boolean timeUp = System.nanoTime() > settleEnd;
                if (!raw.anyOf(!settled) || agree(timeUp ? 1 : 0) == 1) return steps;
                steps = batchSteps(t);
                previous = t;
            }
        }

        /**
         * @param secondsPerStep the last batch's time per step
         * @return the steps of a batch of about {@link #BATCH_NANOS} at that speed, pid 0's figure on
         *         every process. Re-sized after every settling batch: the warm-up's own estimate
         *         includes its slow (interpreted, compiling) start and gave batches far shorter
         *         than {@link #BATCH_NANOS}, whose times after a nap varied wildly
         *         ({@code docs/performance.md}).
         */
        private int batchSteps(double secondsPerStep) {
            double steps = BATCH_NANOS / divisor / Math.max(1e-9, secondsPerStep * 1e9);
            return (int) agree((long) Math.max(1, Math.min(1 << 24, steps)));
        }

        private static final long WARM = 2, NAP = 1;
        /**
         * Every process pauses {@value #NAP_MILLIS} ms, together, after each {@link #NAP_EVERY_NANOS}
         * of warm-up work and before each settling batch: the JIT compiles only when its threads
         * get a core, and with every process polling on 2 cores they hardly did: without the
         * pauses a cell could still be timed before its path was compiled
         * ({@code docs/performance.md}).
         */
        private static final long NAP_EVERY_NANOS = 20_000_000L, NAP_MILLIS = 10;

        /** All processes sleep together: the barrier first, so nobody polls while another sleeps. */
        private void nap() {
            raw.barrier();
            try {
                Thread.sleep(NAP_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** @return the JIT's total compilation time in this JVM so far, ms (-1 if the JVM does not say) */
        private static long compilationMillis() {
            var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
            return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
        }

        /** Two warm-up batches in a row within this many percent of each other end the warm-up. */
        private static final int STABLE_PERCENT = 10;
        /** The longest the warm-up waits for two agreeing batches. */
        private static final long SETTLE_NANOS = 5_000_000_000L;

        /** @return pid 0's {@code value}, on every process */
        private long agree(long value) {
            return raw.broadcast(pid == 0 ? value : 0);
        }

        /** @return seconds per step of one batch on pid 0's clock, the batch started together by a barrier */
        private double batch(Runnable op, int steps) {
            raw.barrier();
            long t0 = System.nanoTime();
            for (int i = 0; i < steps; i++) op.run();
            return (System.nanoTime() - t0) / 1e9 / steps;
        }

        private static double median(double[] t) {
            double[] sorted = t.clone();
            Arrays.sort(sorted);
            return sorted[sorted.length / 2];
        }
    }

    /** @param args {@code --engine NAME [--reps R] [--procs 2,4] [--quick]} */
    public static void main(String[] args) {
        String engine = null;
        int reps = 9, divisor = 1;
        int[] procs = {2, 4};
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--engine" -> engine = value(args, ++i);
                case "--reps" -> reps = Integer.parseInt(value(args, ++i));
                case "--procs" -> procs = Arrays.stream(value(args, ++i).split(",")).mapToInt(Integer::parseInt).toArray();
                case "--quick" -> divisor = 10;
                default -> throw new IllegalArgumentException("LaunchedBench: unknown argument '" + args[i] + "' in "
                        + Arrays.toString(args) + "; expected --engine NAME [--reps R] [--procs 2,4] [--quick]");
            }
        }
        if (engine == null) throw new IllegalArgumentException("LaunchedBench: --engine NAME is missing");
        if (reps < 1) throw new IllegalArgumentException("LaunchedBench: --reps " + reps + ": need at least 1 repetition");
        EngineProvider provider = Engines.byName(engine);
        RawBaseline raw = provider.rawBaseline().orElseThrow(() -> new IllegalArgumentException(
                "LaunchedBench: engine " + provider.name() + " offers no raw transport to compare with"));
        Context root = provider.root(); // the engine's own contexts: the raw transport needs them
        int size = provider.machineSize(); // the job's processes, without a probe
        RawBaseline.Names names = raw.names();
        System.out.println("lpf bench: " + engine + " engine over " + raw.description() + ", " + size + " processes, "
                + Runtime.getRuntime().availableProcessors() + " cores here, Java " + Runtime.version()
                + (java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-Xbatch")
                ? " (JIT in the foreground, -Xbatch)" : "") + "; medians of " + reps
                + " batches; the raw rows use the transport beneath the engine on the same processes");
        for (int p : procs) {
            if (p < 2 || p > size) {
                System.out.printf("p=%d  skipped: the job has %d processes and the rows need 2 <= p <= %d%n", p, size, size);
                continue;
            }
            root.exec(p, new Cells(engine, reps, divisor));
            double[] r = Cells.last;
            System.out.printf("p=%d  empty sync %.2f us (%s %.2f us, ratio %.2fx)%n", p, r[0] * 1e6, names.barrier(), r[4] * 1e6, r[0] / r[4]);
            System.out.printf("p=%d  8-byte put + sync %.2f us%n", p, r[1] * 1e6);
            System.out.printf("p=%d  1 MiB put + sync %.1f us = %.2f GB/s per process (%s of 1 MiB %.1f us = %.2f GB/s, ratio %.2fx)%n",
                    p, r[2] * 1e6, MIB / r[2] / 1e9, names.put(), r[5] * 1e6, MIB / r[5] / 1e9, r[5] / r[2]);
            System.out.printf("p=%d  (raw %s of 1 MiB: %.1f us = %.2f GB/s)%n", p, names.sendReceive(), r[7] * 1e6, MIB / r[7] / 1e9);
            System.out.printf("p=%d  64 KiB total exchange + sync %.1f us%n", p, r[3] * 1e6);
            long[][] sent = Cells.lastSent;
            if (sent != null) {
                System.out.printf("p=%d  sent per step by pid 0 (data+meta messages, payload+meta-data bytes): empty sync %s; 8-byte put %s;"
                        + " 1 MiB put %s; total exchange %s; connections open %s%n", p, sentText(sent[0]), sentText(sent[1]),
                        sentText(sent[2]), sentText(sent[3]), sent[0][WireCounts.COUNTERS] < 0 ? "n/a" : sent[0][WireCounts.COUNTERS]);
            }
        }
        System.out.println("sent: what pid 0's engine sent to other JVMs in one step (docs/profiling.md); '?' = inside the MPI"
                + " library's collectives, not visible");
        System.out.println("ratios: empty sync / " + names.barrier() + " time (target <= 2); 1 MiB put bandwidth / "
                + names.put() + " bandwidth (target >= 0.9)");
        System.out.flush();
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) throw new IllegalArgumentException("LaunchedBench: " + args[i - 1] + " needs a value");
        return args[i];
    }
}
