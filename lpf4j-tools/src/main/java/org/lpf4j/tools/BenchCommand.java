package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.tools.bench.BenchTable;
import org.lpf4j.tools.bench.Settings;
import org.lpf4j.tools.bench.SideBySide;
import org.lpf4j.tools.bench.Workloads;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.concurrent.Callable;

/**
 * {@code lpf bench [--reps R] [--quick] [--procs 1,2,4,8]}: the side-by-side benchmark of
 * {@link Workloads#all()} in one run — empty sync, 8-byte put + sync, 1 MiB put + sync, total
 * exchange of 64 KiB blocks + sync, a single-thread {@code MemorySegment.copy} of 1 MiB; the
 * collectives' allreduce of one double and 1 MiB broadcast beside their hand-written put
 * patterns; BSMP all-to-all messages beside raw puts; empty sync and 8-byte put through
 * {@code Lpf.root()}, the engine's own root and the debug layer — then the ratio rows (put vs
 * copy bandwidth, allreduce vs empty sync, broadcast vs put bandwidth, BSMP vs raw put rate,
 * Lpf.root() and debug layer vs engine root) — as a table over the process counts. Each cell is
 * the median of R repetitions (default 9) after a warm-up, in its own {@code exec}. Asks the
 * selected engine for the largest process count. Takes about 30 s
 * ({@code --quick}: a few seconds, mostly the first probe of each p by the collectives).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Runs the side-by-side benchmark (sync, put, total exchange vs. memory copy; collectives, "
                + "BSMP and the debug layer beside the patterns they replace).")
public class BenchCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--reps", paramLabel = "R", defaultValue = "9",
            description = "timed repetitions per cell; the median is shown (default: ${DEFAULT-VALUE})")
    int reps;

    @Option(names = "--quick", description = "about 1 ms per repetition and 10 ms of warm-up instead of 20 ms and 200 ms")
    boolean quick;

    @Option(names = "--procs", paramLabel = "P", split = ",", defaultValue = "1,2,4,8",
            description = "process counts of the columns (default: ${DEFAULT-VALUE}); each row says where it runs "
                    + "('-' elsewhere)")
    int[] procs;

    @Option(names = "--progress", description = "print each cell's name to stderr before measuring it")
    boolean progress;

    @Mixin EngineOptions engineOptions;

    /** For picocli. */
    public BenchCommand() {}

    @Override
    public Integer call() {
        if (reps < 1) throw new UsageException("lpf bench: --reps " + reps + ": need at least 1 repetition");
        for (int p : procs) {
            if (p < 1) throw new UsageException("lpf bench: --procs " + Arrays.toString(procs) + ": every count must be >= 1");
        }
        int maxP = Arrays.stream(procs).max().orElse(1);
        Settings settings = quick ? Settings.quick(reps) : Settings.standard(reps);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (ParameterScope ignored = engineOptions.apply("lpf bench", maxP)) {
            Context root = EngineOptions.root("lpf bench");
            out.printf("lpf bench: %s engine, %d cores, machine size >= %d, Java %s%n", Lpf.engine().name(),
                    Runtime.getRuntime().availableProcessors(), maxP, Runtime.version());
            out.printf("median of %d repetitions per cell, each about %d ms of steps after %d ms of warm-up; "
                            + "each cell is its own exec of p processes%n", reps,
                    settings.repetitionNanos() / 1_000_000, settings.warmupNanos() / 1_000_000);
            out.flush();
            BenchTable table;
            try {
                table = SideBySide.run(root, Workloads.all(), Workloads.allRatios(), procs, settings,
                        cell -> {
                            if (progress) {
                                err.println("lpf bench: " + cell);
                                err.flush();
                            }
                        });
            } catch (FatalException e) {
                throw new ProgramFailure("lpf bench: a benchmark section failed: " + e.getMessage(), e);
            }
            out.print(table.format());
            out.println("GB/s = 10^9 bytes per second sent by each process (broadcast rows: received by each "
                    + "non-root); M msg/s = 10^6 messages sent per process per second; µs per step; ratios are "
                    + "value / value of the rows named; '-' = not measured (collectives run at p >= 2, BSMP at "
                    + "2..4, empty sync everywhere, the other rows at p <= 4)");
        }
        out.flush();
        return 0;
    }
}
