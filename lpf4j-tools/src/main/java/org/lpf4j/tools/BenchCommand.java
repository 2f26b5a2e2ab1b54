package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.tools.bench.BenchTable;
import org.lpf4j.tools.bench.LaunchedBench;
import org.lpf4j.tools.bench.LatencyTable;
import org.lpf4j.tools.bench.RunSpread;
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
 *
 * <p>After the table, the step latency distribution of every cell (median, p99 and max of the
 * durations of all timed steps at process 0, {@link LatencyTable}); {@code --runs N} repeats the
 * table N times and prints max/min of the N medians per cell ({@link RunSpread});
 * {@code --plot DIR} draws every row against p. {@code --programs} replaces the table by the
 * example programs beside their Java peers ({@link ProgramsSection}).
 *
 * <p>An engine whose processes come from its launcher and that offers the transport beneath it
 * ({@link EngineProvider#rawBaseline()}, e.g. {@code lpf bench --engine mpi}) gets the run
 * delegated instead: {@link LaunchedBench} runs on max(--procs) processes under its launcher and
 * prints the engine's rows beside the raw rows of that transport (e.g. {@code MPI_Barrier},
 * {@code MPI_Put} + {@code MPI_Win_fence}) with the ratios; {@code --reps}, {@code --procs} and
 * {@code --quick} pass through, and its JVMs compile in the foreground ({@code -Xbatch}).
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

    @Option(names = "--programs", description = "instead of the workload table: the example programs (sample sort, "
            + "matrix multiply, FFT, PageRank) beside their Java peers, at p = 1, 2, 4 and the core count unless "
            + "--procs is given; medians of 5 runs unless --reps is given; --quick: tiny sizes")
    boolean programs;

    @Option(names = "--runs", paramLabel = "N", defaultValue = "1",
            description = "measure the whole table N times and print, per cell, max/min of the N medians (default: 1)")
    int runs;

    @Option(names = "--plot", paramLabel = "DIR",
            description = "also draw the results into DIR as PNG and SVG (see docs/programs.md for the files)")
    java.nio.file.Path plot;

    @Mixin EngineOptions engineOptions;

    /** For picocli. */
    public BenchCommand() {}

    @Override
    public Integer call() {
        var parsed = spec.commandLine().getParseResult();
        if (programs && !parsed.hasMatchedOption("--procs")) procs = ProgramsSection.defaultProcs();
        if (programs && !parsed.hasMatchedOption("--reps")) reps = 5;
        if (runs < 1) throw new UsageException("lpf bench: --runs " + runs + ": need at least 1 run");
        if (reps < 1) throw new UsageException("lpf bench: --reps " + reps + ": need at least 1 repetition");
        for (int p : procs) {
            if (p < 1) throw new UsageException("lpf bench: --procs " + Arrays.toString(procs) + ": every count must be >= 1");
        }
        int maxP = Arrays.stream(procs).max().orElse(1);
        Settings settings = quick ? Settings.quick(reps) : Settings.standard(reps);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (ParameterScope ignored = engineOptions.apply("lpf bench", maxP)) {
            java.util.Optional<Integer> launched = launchedBenchmark(maxP, out);
            if (launched.isPresent()) return launched.get();
            if (plot != null) PlotTarget.directory("lpf bench", plot);
            if (!parsed.hasMatchedOption("--procs")) {
                procs = withinMachine(procs, out);
                maxP = Arrays.stream(procs).max().orElse(1);
            }
            requireProcesses(maxP);
            Context root = EngineOptions.root("lpf bench");
            if (programs) {
                return ProgramsSection.run(root, procs, reps, quick, plot, out, line -> {
                    if (progress) {
                        err.println("lpf bench: " + line);
                        err.flush();
                    }
                });
            }
            out.printf("lpf bench: %s engine, %d cores, machine size >= %d, Java %s%n", Lpf.engine().name(),
                    Runtime.getRuntime().availableProcessors(), maxP, Runtime.version());
            out.printf("median of %d repetitions per cell, each about %d ms of steps after at least %d ms of warm-up and until the JIT is quiet; "
                            + "each cell is its own exec of p processes%n", reps,
                    settings.repetitionNanos() / 1_000_000, settings.warmupNanos() / 1_000_000);
            out.flush();
            java.util.List<BenchTable> tables = new java.util.ArrayList<>();
            for (int run = 1; run <= runs; run++) {
                if (runs > 1) out.printf("run %d of %d%n", run, runs);
                BenchTable table;
                LatencyTable latencies = new LatencyTable();
                org.lpf4j.tools.bench.SentTable sent = new org.lpf4j.tools.bench.SentTable();
                try {
                    table = SideBySide.run(root, Workloads.all(), Workloads.allRatios(), procs, settings,
                            cell -> {
                                if (progress) {
                                    err.println("lpf bench: " + cell);
                                    err.flush();
                                }
                            }, latencies, sent);
                } catch (FatalException e) {
                    throw new ProgramFailure("lpf bench: a benchmark section failed: " + e.getMessage(), e);
                }
                tables.add(table);
                out.print(table.format());
                out.println("GB/s = 10^9 bytes per second sent by each process (broadcast rows: received by each "
                        + "non-root); M msg/s = 10^6 messages sent per process per second; µs per step; ratios are "
                        + "value / value of the rows named; '-' = not measured (collectives run at p >= 2, BSMP at "
                        + "2..4, empty sync everywhere, the other rows at p <= 4)");
                out.print(latencies.format(procs));
                out.println("step latency = duration of each timed step (its superstep or supersteps) at process 0: "
                        + "median / 99th percentile / maximum over all steps of the cell, µs (HdrHistogram)");
                out.print(sent.format(procs));
                if (sent.counted()) {
                    out.println("sent per step = what process 0 sent to other JVMs per timed step (mean): messages data+meta "
                            + "(the exchange's streams, large puts, replies + the sync's collectives), bytes payload+meta "
                            + "(put and reply data + headers and collectives), connections open; '?' = inside the MPI "
                            + "library's collectives, not visible (docs/profiling.md)");
                }
                out.flush();
            }
            if (runs > 1) {
                out.printf("spread over %d runs: max/min of the medians per cell%n", runs);
                out.print(RunSpread.of(tables).format());
            }
            if (plot != null) {
                for (java.nio.file.Path f : org.lpf4j.tools.plot.Charts.workloads(tables.get(0), plot)) {
                    out.println("wrote " + f);
                }
            }
        }
        out.flush();
        return 0;
    }

    /**
     * The table runs in this JVM: refuses, before anything starts, a process count the selected
     * engine cannot give here (the hybrid engine outside a launcher: one node of its configured
     * threads), instead of a table whose columns stay empty.
     */
    private static void requireProcesses(int maxP) {
        EngineProvider engine = Lpf.engine();
        int size = engine.machineSize();
        if (size < maxP) {
            throw new UsageException("lpf bench: the " + engine.name() + " engine runs at most " + size + " processes in"
                    + " this JVM (its machine size here), and --procs asks for " + maxP + "; give --procs up to " + size
                    + ", or raise the limit with " + raise(engine, maxP));
        }
    }

    /**
     * The default columns (no {@code --procs}) on an engine that gives fewer processes in this JVM
     * (hybrid: one node of its threads): those that fit, with a line saying so.
     */
    private static int[] withinMachine(int[] columns, PrintWriter out) {
        EngineProvider engine = Lpf.engine();
        int size = engine.machineSize();
        int[] fit = Arrays.stream(columns).filter(p -> p <= size).toArray();
        if (fit.length == columns.length) return columns;
        if (fit.length == 0) fit = new int[] {size};
        int max = Arrays.stream(columns).max().orElse(1);
        out.println("lpf bench: the " + engine.name() + " engine runs at most " + size + " processes in this JVM: columns p = "
                + Arrays.stream(fit).mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(","))
                + " (for more: " + raise(engine, max) + ")");
        return fit;
    }

    /**
     * @return how to raise the engine's processes in this JVM: {@code --param} with its parameter of
     *         processes per JVM ({@code lpf.engine.E.threads}, else {@code lpf.engine.E.procs}), if it has one
     */
    private static String raise(EngineProvider engine, int p) {
        var registry = org.lpf4j.spi.ParameterRegistry.global();
        for (String name : java.util.List.of("threads", "procs")) {
            String key = "lpf.engine." + engine.name() + "." + name;
            if (registry.find(key).isPresent()) return "--param " + key + "=" + p;
        }
        // No parameter gives more processes in this JVM: an engine with a launcher gets them only from it,
        // which lpf bench does not start for this engine (a hint to a --param that does not exist misleads).
        if (engine.launcher().isPresent()) {
            return "no parameter: the " + engine.name() + " engine gets more processes only from its launcher, which"
                    + " lpf bench does not start for it (time a program with lpf run --engine " + engine.name()
                    + " -p " + p + " instead)";
        }
        return "--param (lpf info lists the engine's parameters)";
    }

    /**
     * An engine whose processes come from its launcher and that offers its raw transport
     * ({@link EngineProvider#rawBaseline()}): runs {@link LaunchedBench} on max(--procs) processes
     * under the launcher (the engine's rows beside the transport's, with ratios) and returns its
     * exit status; empty for every other engine (the in-JVM table below).
     */
    private java.util.Optional<Integer> launchedBenchmark(int maxP, PrintWriter out) {
        EngineProvider engine;
        try {
            engine = Lpf.engine();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new UsageException("lpf bench: " + e.getMessage());
        }
        var launcher = engine.launcher();
        if (launcher.isEmpty() || engine.rawBaseline().isEmpty()) return java.util.Optional.empty();
        if (programs || runs > 1 || plot != null) {
            throw new UsageException("lpf bench: engine " + engine.name() + " runs its own benchmark under its launcher;"
                    + " --programs, --runs and --plot are not available there");
        }
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--engine", engine.name(), "--reps", Integer.toString(reps), "--procs",
                Arrays.stream(procs).mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(","))));
        if (quick) args.add("--quick");
        var jvm = RunCommand.thisJvm(maxP, LaunchedBench.class.getName(), args);
        // Foreground compilation (-Xbatch): with every process polling, background compiler threads
        // hardly get a core on a small machine, and a cell could be timed in a slower tier (the MPI
        // engine's figures with and without it: docs/performance.md).
        java.util.List<String> options = new java.util.ArrayList<>(jvm.jvmOptions());
        if (!options.contains("-Xbatch")) options.add("-Xbatch");
        jvm = new ProcessLauncher.Launch(jvm.processes(), jvm.javaCommand(), jvm.classPath(), options, jvm.mainClass(), jvm.args());
        int status = Launched.run("lpf bench", launcher.get(), jvm, out);
        if (status != 0) throw new ProgramFailure("lpf bench: the " + engine.name() + " engine's benchmark exited with status " + status, null);
        return java.util.Optional.of(0);
    }
}
