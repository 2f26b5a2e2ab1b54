package org.lpf4j.bench.programs;

import org.lpf4j.Context;
import org.lpf4j.examples.BspRun;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Times every {@link ProgramCase} at every process count: the lpf4j program in its own
 * {@code exec} of p processes, then its peer on p threads, each {@code warmups} untimed and
 * {@code reps} timed runs from a freshly reset input; the median is kept.
 *
 * <p>lpf4j protocol: every process resets its input, syncs, process 0 reads the clock, every
 * process runs the program and syncs again, process 0 reads the clock: the time from a common
 * start until the slowest process has finished. After the timed runs, the program's check runs
 * once (untimed) and its summary is kept. Peer protocol: reset, clock, {@link Peer#run()}, clock;
 * the peer's check runs once after the timed runs.
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
                progress.accept(pc.name() + " (lpf4j) at p=" + p);
                double[][] samples = new double[1][];
                int[] ran = new int[1];
                root.exec(p, ctx -> {
                    double[] mine = timeLpf(ctx, pc, warmups, reps, summaries, col);
                    if (ctx.pid() == 0) {
                        samples[0] = mine;
                        ran[0] = ctx.nprocs();
                    }
                });
                if (ran[0] != p) {
                    throw new IllegalStateException("ProgramBench: " + pc.name() + " asked for " + p
                            + " processes and got " + ran[0] + "; raise the machine size");
                }
                lpf[c] = ProgramResult.median(samples[0]);
                progress.accept(pc.name() + " (" + pc.peerName() + ") on " + p + " threads");
                peer[c] = ProgramResult.median(timePeer(pc, p, warmups, reps));
            }
            results.add(new ProgramResult(pc.name(), pc.size(), pc.peerName(), procs, lpf, peer, summaries));
        }
        return results;
    }

    private static double[] timeLpf(Context ctx, ProgramCase pc, int warmups, int reps, String[] summaries, int column) {
        double[] samples = new double[reps];
        try (BspRun run = pc.prepare(ctx)) {
            for (int r = -warmups; r < reps; r++) {
                run.reset();
                ctx.sync();
                long t0 = System.nanoTime();
                run.run();
                ctx.sync();
                long t1 = System.nanoTime();
                if (r >= 0) samples[r] = (t1 - t0) / 1e9;
            }
            String summary = run.check();
            if (ctx.pid() == 0) summaries[column] = summary;
        }
        return samples;
    }

    private static double[] timePeer(ProgramCase pc, int threads, int warmups, int reps) {
        double[] samples = new double[reps];
        try (Peer peer = pc.peer(threads)) {
            for (int r = -warmups; r < reps; r++) {
                peer.reset();
                long t0 = System.nanoTime();
                peer.run();
                long t1 = System.nanoTime();
                if (r >= 0) samples[r] = (t1 - t0) / 1e9;
            }
            peer.check();
        }
        return samples;
    }

    /**
     * @param procs the counts asked for
     * @return them, sorted, without duplicates
     */
    public static int[] distinctSorted(int[] procs) {
        return Arrays.stream(procs).distinct().sorted().toArray();
    }
}
