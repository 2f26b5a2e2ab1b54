package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.bench.programs.ProgramBench;
import org.lpf4j.bench.programs.ProgramResult;
import org.lpf4j.bench.programs.Programs;
import org.lpf4j.tools.bench.BenchTable;
import org.lpf4j.tools.plot.Charts;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code lpf bench --programs}: the example programs (sample sort, SUMMA, FFT, PageRank) beside
 * their Java peers ({@link Programs}), timed by {@link ProgramBench} and printed as one table:
 * per program the lpf4j and the peer time in ms, both speed-ups over p = 1, and the ratio
 * lpf4j / peer at equal p.
 */
final class ProgramsSection {
    private ProgramsSection() {}

    /** @return p = 1, 2, 4 and the machine's core count, sorted, without duplicates */
    static int[] defaultProcs() {
        return ProgramBench.distinctSorted(new int[] {1, 2, 4, Runtime.getRuntime().availableProcessors()});
    }

    /**
     * Measures and prints the section; draws it into {@code plotDir} if not null.
     *
     * @return the exit status (0)
     */
    static int run(Context root, int[] procs, int reps, boolean quick, Path plotDir, PrintWriter out,
                   Consumer<String> progress) {
        int[] columns = ProgramBench.distinctSorted(procs);
        int common = Programs.prepareCommonPool(columns[columns.length - 1]);
        int warmups = quick ? 1 : 2;
        out.printf("lpf bench --programs: %d cores, Java %s; median of %d timed runs after %d untimed per cell; "
                        + "lpf4j (one exec of p processes per cell, from a common sync to the sync after the run) "
                        + "and its peer (p threads: a ForkJoinPool of parallelism p, JTransforms p threads) "
                        + "alternate run by run; common-pool parallelism %d (Arrays.parallelSort splits by it)%n",
                Runtime.getRuntime().availableProcessors(), Runtime.version(), reps, warmups, common);
        out.flush();
        List<ProgramResult> results;
        try {
            results = ProgramBench.run(root, quick ? Programs.quick() : Programs.standard(), columns, warmups, reps,
                    progress);
        } catch (FatalException e) {
            throw new ProgramFailure("lpf bench --programs: a program failed: " + e.getMessage(), e);
        }
        out.print(table(results, columns).format());
        out.println("ms = median milliseconds per run; speed-up = time at p=1 / time at p; lpf4j / peer = time ratio "
                + "at equal p (below 1: lpf4j faster). Checks (process 0, at the largest p):");
        for (ProgramResult r : results) out.println("  " + r.summaries()[columns.length - 1]);
        if (plotDir != null) {
            for (Path f : Charts.programs(results, plotDir)) out.println("wrote " + f);
        }
        out.flush();
        return 0;
    }

    /**
     * @param results the measurements
     * @param procs   the columns
     * @return the printed table: five rows per program
     */
    static BenchTable table(List<ProgramResult> results, int[] procs) {
        List<BenchTable.Row> rows = new ArrayList<>();
        for (ProgramResult r : results) {
            double[] lpf = r.lpf(), peer = r.peer();
            rows.add(new BenchTable.Row(r.name() + " " + r.size() + ": lpf4j", "ms", scale(lpf, 1e3)));
            rows.add(new BenchTable.Row(r.name() + ": " + r.peerName(), "ms", scale(peer, 1e3)));
            rows.add(new BenchTable.Row(r.name() + ": lpf4j speed-up", "x", r.speedUp(lpf)));
            rows.add(new BenchTable.Row(r.name() + ": peer speed-up", "x", r.speedUp(peer)));
            rows.add(new BenchTable.Row(r.name() + ": lpf4j / peer", "ratio", r.ratio()));
        }
        return new BenchTable(procs, rows);
    }

    private static double[] scale(double[] v, double factor) {
        double[] s = new double[v.length];
        for (int i = 0; i < v.length; i++) s[i] = v[i] * factor;
        return s;
    }
}
