package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.Machine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@code lpf probe [-p N] [--engine E] [--param k=v]...}: prints what {@code probe()} measures —
 * g in seconds and nanoseconds per byte and l in microseconds for each message size — either on
 * the root context or, with {@code -p N}, inside an {@code exec} of N processes (the selected
 * engine is asked to provide N: an in-process engine by its settings; an engine whose processes
 * come from its {@link org.lpf4j.spi.EngineProvider#launcher() launcher}, such as mpi, by running
 * this command on N processes under it, as {@code lpf run -p N} does, whose first process prints
 * the table). The first probe per process count measures (within the engine's probe budget, see
 * {@code lpf info}); the result is cached for the JVM. It always measures, and on an engine that
 * keeps a disk cache ({@link org.lpf4j.spi.kit.ProbeCache}: threads, mpi) writes the figures there
 * (unless {@code lpf.probe.cache=off}) and prints where: the programs on this machine then read
 * them instead of measuring.
 */
@Command(name = "probe", mixinStandardHelpOptions = true,
        description = "Prints the measured BSP parameters g and l per message size.")
public class ProbeCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = {"-p", "--procs"}, paramLabel = "N",
            description = "probe inside an exec of N processes (default: probe the root context)")
    Integer procs;

    @Option(names = "--plot", paramLabel = "FILE",
            description = "also draw g and l against the message size into FILE.png and FILE.svg")
    java.nio.file.Path plot;

    @Mixin EngineOptions engineOptions;

    /** For picocli. */
    public ProbeCommand() {}

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (plot != null) PlotTarget.file("lpf probe", plot);
        try (ParameterScope scope = engineOptions.apply("lpf probe", procs)) {
            var launcher = procs == null ? java.util.Optional.<org.lpf4j.spi.ProcessLauncher>empty() : engine().launcher();
            if (launcher.isPresent()) {
                // Under the launcher this engine offers no launcher, so each process probes in place.
                java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("probe", "-p", procs.toString()));
                args.addAll(engineOptions.asArguments());
                if (plot != null) args.addAll(java.util.List.of("--plot", plot.toAbsolutePath().toString()));
                return Launched.run("lpf probe", launcher.get(), RunCommand.thisJvm(procs, LpfCommand.class.getName(), args), out);
            }
            Context root = EngineOptions.root("lpf probe");
            // lpf probe always measures; unless the cache is off it then replaces the cached figures.
            boolean cache = !org.lpf4j.spi.kit.ProbeCache.mode().equals("off");
            if (cache) scope.set(org.lpf4j.spi.CoreParameters.PROBE_CACHE.key(), "refresh");
            java.time.Instant started = java.time.Instant.now();
            Machine machine = procs == null ? root.probe() : probeInside(root, procs);
            String where = procs == null ? "root context" : "exec of " + machine.p();
            out.print(table(Lpf.engine().name(), where, machine));
            out.println(cacheLine(Lpf.engine().name(), cache, started));
            if (plot != null) {
                String title = "lpf probe: " + Lpf.engine().name() + " engine, " + where + ", "
                        + Runtime.getRuntime().availableProcessors() + " cores";
                for (java.nio.file.Path f : org.lpf4j.tools.plot.Charts.probe(machine, title, plot)) out.println("wrote " + f);
            }
        }
        out.flush();
        return 0;
    }

    /**
     * @return where this probe left its figures: the cache file this JVM wrote, or why it wrote
     *         none (the cache is off, or the engine measures in every job and keeps no file)
     */
    static String cacheLine(String engine, boolean cache, java.time.Instant started) {
        if (!cache) return "cache: off (lpf.probe.cache=off): nothing written";
        var f = org.lpf4j.spi.kit.ProbeCache.lastWritten();
        try {
            if (f.isPresent() && java.nio.file.Files.getLastModifiedTime(f.get()).toInstant().plusSeconds(1).isAfter(started)) {
                return "cache: wrote " + f.get() + " (programs on this machine read it instead of measuring)";
            }
        } catch (java.io.IOException e) {
            // gone again: below
        }
        return "cache: nothing written for the " + engine + " engine (it measures once per job and layout;"
                + " or the directory is not writable: " + org.lpf4j.spi.kit.ProbeCache.directory() + ")";
    }

    private static org.lpf4j.spi.EngineProvider engine() {
        try {
            return Lpf.engine();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new UsageException("lpf probe: " + e.getMessage());
        }
    }

    private static Machine probeInside(Context root, int p) {
        Machine[] result = new Machine[1];
        try {
            root.exec(p, ctx -> {
                // Every process probes: on the mpi engine the measurement is collective over the section.
                Machine m = ctx.probe();
                if (ctx.pid() == 0) result[0] = m;
            });
        } catch (FatalException e) {
            throw new ProgramFailure("lpf probe: the probing section failed: " + e.getMessage(), e);
        }
        return result[0];
    }

    /**
     * @param engine the engine's name
     * @param where  what probed ({@code "root context"}, {@code "exec of 4"})
     * @param m      the measurement
     * @return the table {@code lpf probe} prints: a header line, then one row per message size;
     *         when the machine reports levels ({@link Machine#levels()}), the node layout and a
     *         row per size with each level's g and l
     */
    static String table(String engine, String where, Machine m) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("lpf probe: %s engine, %s: p=%d, freeP=%d%n", engine, where, m.p(), m.freeP()));
        b.append(String.format("  p: processes of the probing context; g and l are for all p communicating"
                + " (Machine.g(q, size) prices q < p)%n"));
        b.append(String.format("  freeP: processes an exec(Lpf.MAX_P, ...) from this context gets (the processors"
                + " not used by its processes); an explicit exec(p) may get more on an engine that runs processes"
                + " oversubscribed (threads: up to lpf.engine.threads.maxProcs)%n"));
        b.append(String.format("%14s %14s %12s %12s%n", "msg size (B)", "g (s/B)", "g (ns/B)", "l (µs)"));
        for (long size : m.messageSizes()) {
            double g = m.g(size);
            b.append(String.format("%14d %14.4e %12.5f %12.3f%n", size, g, g * 1e9, m.l(size) * 1e6));
        }
        m.levels().ifPresent(lv -> {
            StringBuilder nodes = new StringBuilder();
            for (int k = 0; k < lv.nodes(); k++) nodes.append(k == 0 ? "" : " + ").append(lv.nodeSize(k));
            b.append(String.format("levels: %d nodes (%s processes; pids numbered node by node)%n", lv.nodes(), nodes));
            b.append(String.format("%14s %14s %12s %14s %12s%n", "msg size (B)", "intra g (ns/B)", "intra l (µs)",
                    "inter g (ns/B)", "inter l (µs)"));
            for (long size : m.messageSizes()) {
                b.append(String.format("%14d %14.5f %12.3f %14.5f %12.3f%n", size, lv.intra().g(size) * 1e9,
                        lv.intra().l(size) * 1e6, lv.inter().g(size) * 1e9, lv.inter().l(size) * 1e6));
            }
            b.append(String.format("  intra: one node's %d processes among themselves; inter: one process per node"
                    + " (g per byte a node moves)%n", lv.intra().p()));
        });
        // The probe logs nothing a program would see (only DEBUG): this table is where an unreliable fit shows.
        java.util.List<String> warnings = new java.util.ArrayList<>(m.warnings());
        m.levels().ifPresent(lv -> {
            lv.intra().warnings().forEach(w -> warnings.add("intra: " + w));
            lv.inter().warnings().forEach(w -> warnings.add("inter: " + w));
        });
        for (String w : warnings) b.append("UNRELIABLE ").append(w).append(String.format("%n"));
        if (!warnings.isEmpty()) {
            b.append(String.format("  (the machine was too busy or too noisy for a fit: the figures above are bounds;"
                    + " probe again on a quieter machine or raise the probe budget)%n"));
        }
        return b.toString();
    }
}
