package org.lpf4j.bench.programs;

import org.lpf4j.Context;
import org.lpf4j.examples.BspRun;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Times every {@link ProgramCase} at every process count: in one {@code exec} of p processes the
 * lpf4j program and its peer on p threads <em>alternate</em>, run by run, so that both see the
 * same machine (on a shared machine the load changes from second to second); {@code warmups}
 * untimed and {@code reps} timed runs of each, each from a freshly reset input; the medians are
 * kept.
 *
 * <p>lpf4j run: every process resets its input, syncs, process 0 reads the clock, every process
 * runs the program and syncs again, process 0 reads the clock: the time from a common start until
 * the slowest process has finished. Peer run: process 0 resets the peer's input, reads the clock,
 * runs the peer, reads the clock, while the other processes wait in the next sync (the threads
 * engine's waiting parks after a short spin, so they do not compete for the cores). After the
 * timed runs both checks run once (untimed) and the program's summary is kept.
 */
public final class ProgramBench {
    private ProgramBench() {}

    /**
     * @param root     the context whose {@code exec} starts the sections; its machine must allow max(procs)
     * @param cases    the programs
     * @param procs    the process counts
     * @param warmups  untimed runs before the timed ones, ≥ 0
     * @param reps     timed runs, ≥ 1
     * @param progress told each cell's name before it starts
     * @return one result per case, in order
     * @throws org.lpf4j.FatalException if a section (or its check) fails
     * @throws IllegalStateException    if a peer's check fails, or a section ran on fewer processes than asked
     */
    public static List<ProgramResult> run(Context root, List<ProgramCase> cases, int[] procs, int warmups, int reps,
                                          Consumer<String> progress) {
        if (reps < 1 || warmups < 0) {
            throw new IllegalArgumentException("ProgramBench.run: need reps >= 1 and warmups >= 0, got reps=" + reps
                    + ", warmups=" + warmups);
        }
        List<ProgramResult> results = new ArrayList<>();
        for (ProgramCase pc : cases) {
            double[] lpf = new double[procs.length], peer = new double[procs.length];
            String[] summaries = new String[procs.length];
            for (int c = 0; c < procs.length; c++) {
                int p = procs[c], col = c;
                progress.accept(pc.name() + " at p=" + p + ", alternating with " + pc.peerName() + " on " + p
                        + " threads");
                double[][] samples = new double[2][];
                int[] ran = new int[1];
                try (Peer peerRun = pc.peer(p)) {
                    root.exec(p, new Cell(pc, peerRun, warmups, reps, summaries, col, samples, ran));
                }
                if (ran[0] != p) {
                    throw new IllegalStateException("ProgramBench: " + pc.name() + " asked for " + p
                            + " processes and got " + ran[0] + "; raise the machine size");
                }
                lpf[c] = ProgramResult.median(samples[0]);
                peer[c] = ProgramResult.median(samples[1]);
            }
            results.add(new ProgramResult(pc.name(), pc.size(), pc.peerName(), procs, lpf, peer, summaries));
        }
        return results;
    }

    /**
     * One cell's section. The peer and the result arrays are transient: process 0 runs in the
     * JVM that made the cell and uses them; a multi-process engine ships the rest to its other JVMs.
     */
    private static final class Cell implements org.lpf4j.Spmd {
        private static final long serialVersionUID = 1L;
        private final ProgramCase pc;
        private final int warmups, reps, column;
        private final transient Peer peer;
        private final transient String[] summaries;
        private final transient double[][] samples;
        private final transient int[] ran;

        Cell(ProgramCase pc, Peer peer, int warmups, int reps, String[] summaries, int column, double[][] samples,
             int[] ran) {
            this.pc = pc;
            this.peer = peer;
            this.warmups = warmups;
            this.reps = reps;
            this.summaries = summaries;
            this.column = column;
            this.samples = samples;
            this.ran = ran;
        }

        @Override
        public void run(Context ctx) {
            double[][] mine = timeBoth(ctx, pc, peer, warmups, reps, summaries, column);
            if (ctx.pid() == 0) {
                samples[0] = mine[0];
                samples[1] = mine[1];
                ran[0] = ctx.nprocs();
            }
        }
    }

    /** @return at process 0: {lpf4j seconds, peer seconds} of the timed runs; elsewhere {lpf4j seconds, null} */
    private static double[][] timeBoth(Context ctx, ProgramCase pc, Peer peer, int warmups, int reps,
                                       String[] summaries, int column) {
        boolean leader = ctx.pid() == 0;
        double[] lpf = new double[reps], other = leader ? new double[reps] : null;
        try (BspRun run = pc.prepare(ctx)) {
            for (int r = -warmups; r < reps; r++) {
                run.reset();
                ctx.sync();
                long t0 = System.nanoTime();
                run.run();
                ctx.sync();
                long t1 = System.nanoTime();
                if (r >= 0) lpf[r] = (t1 - t0) / 1e9;
                if (leader) {
                    peer.reset();
                    long t2 = System.nanoTime();
                    peer.run();
                    long t3 = System.nanoTime();
                    if (r >= 0) other[r] = (t3 - t2) / 1e9;
                }
                ctx.sync();
            }
            String summary = run.check();
            if (leader) {
                summaries[column] = summary;
                peer.check();
            }
        }
        return new double[][] {lpf, other};
    }

    /**
     * @param procs the counts asked for
     * @return them, sorted, without duplicates
     */
    public static int[] distinctSorted(int[] procs) {
        return Arrays.stream(procs).distinct().sorted().toArray();
    }
}
