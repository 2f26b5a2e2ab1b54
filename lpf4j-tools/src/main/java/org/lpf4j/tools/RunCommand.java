package org.lpf4j.tools;

import org.lpf4j.Args;
import org.lpf4j.Context;
import org.lpf4j.FatalException;
import org.lpf4j.Lpf;
import org.lpf4j.cr.CrSettings;
import org.lpf4j.cr.Restarts;
import org.lpf4j.spi.EngineProvider;
import org.lpf4j.spi.ProcessLauncher;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import org.lpf4j.spi.Parameters.Parameter;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lpf run [-p N] [--engine E] [--param k=v]... [--debug] [--class-path P] [--checkpoint-dir D
 * [--checkpoint-every T] [--restarts K] [--resume]] <class> [args...]}: runs an SPMD program.
 *
 * <p>An {@link org.lpf4j.Spmd} class (public no-argument constructor) runs as
 * {@code Lpf.root().exec(N, program, args)} with N = {@code -p} or the machine size, each
 * process on its own instance (so the class may keep per-process state in fields); the
 * remaining arguments are its {@link Args#symbols() symbols} (strings), and process 0 gets an
 * output segment of {@value #OUTPUT_BYTES} bytes whose content, a NUL-terminated UTF-8 string
 * ({@link MemorySegment#setString}), is printed afterwards, followed by the section's superstep
 * count and time per superstep. Any other class with {@code public static void main(String[])}
 * has its {@code main} called with the remaining arguments.
 *
 * <p>{@code -p N} gives the program exactly N processes, also a main that asks for
 * {@code Lpf.MAX_P}: an in-process engine gets the settings it names
 * ({@link EngineProvider#settingsForProcesses}, e.g. a machine size of exactly N, so N may exceed
 * the core count or be below it), and a main is refused if the machine size is not N then; an engine with a {@link EngineProvider#launcher() launcher}
 * gets the whole run delegated: {@code lpf run} finds the program's class, prints the header line,
 * starts the launcher's command for N processes, each running this {@code lpf run} without
 * {@code -p} (and without the header), forwards their output and returns the launcher's exit
 * status (and kills the process tree if it is itself interrupted).
 *
 * <p>Checkpoints: {@code --checkpoint-dir D} selects the {@code files} cr module for the program's
 * {@link org.lpf4j.cr.Checkpoints}, {@code --checkpoint-every T} its interval; {@code --restarts K}
 * runs a failed job again (in this JVM with {@link Restarts} on an in-process engine, by starting the
 * launcher again otherwise), and each retry resumes from the last complete checkpoint;
 * {@code --resume} resumes the first run too. Exit status: 0 on success,
 * {@value ProgramFailure#EXIT_CODE} if the program failed, {@value UsageException#EXIT_CODE} for a
 * usage error (unknown class, bad option or parameter).
 *
 * <p>{@code --profile DIR} (Spmd programs only, every engine) records every process's supersteps:
 * the compute time before each sync, the time waiting in it, the messages and bytes out and in,
 * and the time the section's g and l ({@link Context#probe()}) predict. Each process writes its
 * records into DIR (so DIR must be visible to all processes: local for one machine, shared
 * across machines), and pid 0's JVM merges them when the section has ended into
 * {@code DIR/supersteps.csv}, {@code DIR/timeline.png} and {@code DIR/timeline.svg}, and prints
 * the slowest supersteps (see {@link Profile}, {@link ProfileRecords}). This works the same for a
 * job started by hand ({@code mpirun -n 4 ... lpf run --profile DIR ...}). DIR is created if only
 * it is missing; a missing parent or an unwritable DIR is a usage error before anything starts.
 * Cost with the option: a few array increments per put, get and sync, one probe per section
 * before the program starts (usually from the probe cache; not in the recorded times) and the
 * files; without it, none. A failed section writes no profile (and leaves no record files).
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Runs an SPMD program (an org.lpf4j.Spmd class, or a class with a main method).")
public class RunCommand implements Callable<Integer> {
    /** Bytes of the output segment process 0 of an Spmd program gets. */
    public static final int OUTPUT_BYTES = 1 << 16;

    @Spec CommandSpec spec;

    @Option(names = {"-p", "--procs"}, paramLabel = "N",
            description = "number of processes: the program gets exactly N, also a main that asks for Lpf.MAX_P "
                    + "(default: the machine size)")
    Integer procs;

    @Option(names = "--nodes", paramLabel = "N",
            description = "with -p: the nodes to start the job on; hybrid: the JVMs (one per node, several processes"
                    + " each); mpi and net under srun: srun -N. Sets the engine's launchNodes parameter")
    Integer nodes;

    @Mixin EngineOptions engineOptions;

    @Option(names = "--debug", description = "check for programming errors (sets lpf.debug=true; slow): each is "
            + "reported with the program's file:line, the pid and the values")
    boolean debug;

    @Option(names = {"-cp", "--class-path"}, paramLabel = "PATH",
            description = "extra jars and directories to load the program from (separated by the "
                    + "platform's path separator, ':' on Unix)")
    String classPath;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR",
            description = "keep checkpoints in DIR (created if missing; shared by all hosts of the job): selects the "
                    + "cr module files (lpf.cr=files, lpf.cr.files.dir=DIR); the program declares its state with "
                    + "org.lpf4j.cr.Checkpoints")
    Path checkpointDir;

    @Option(names = "--checkpoint-every", paramLabel = "DURATION",
            description = "take a checkpoint at the program's first checkpoint point after DURATION (e.g. 30s, 500ms, "
                    + "2m) since the last one; needs --checkpoint-dir or --param lpf.cr=memory")
    String checkpointEvery;

    @Option(names = "--restarts", paramLabel = "K", defaultValue = "0",
            description = "when the job fails (a process threw, was killed, ran out of memory, froze past the engine's "
                    + "sync timeout), start it again, up to K times; it resumes from the last complete checkpoint")
    int restarts;

    @Option(names = "--resume", description = "resume from the last complete checkpoint in --checkpoint-dir (an "
            + "explicit restart of a job that stopped or finished)")
    boolean resume;

    @Option(names = "--attempt", hidden = true, defaultValue = "0",
            description = "set by lpf run on the processes it launches again: which attempt of the job this is")
    int attempt;

    @Option(names = "--run-id", hidden = true,
            description = "set by lpf run on the processes it launches: the job's run id (retries restore only its checkpoints)")
    String runId;

    @Option(names = "--profile", paramLabel = "DIR",
            description = "record every superstep of every process (compute, wait in sync, messages and bytes out and in,"
                    + " the time g and l predict); write DIR/supersteps.csv, DIR/timeline.png and .svg, and print the"
                    + " slowest supersteps. DIR is created if its parent exists; all processes must see it")
    String profileDir;

    /** The run's profile, from {@code --profile}; null without it. */
    private Profile profile;

    @Option(names = "--launched", hidden = true,
            description = "set by lpf run on the processes it launches: the launching side printed the header line")
    boolean launched;

    @Parameters(index = "0", paramLabel = "CLASS", description = "fully qualified name of the program's class")
    String className;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "arguments of the program")
    List<String> programArgs = new ArrayList<>();

    /** For picocli. */
    public RunCommand() {}

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (nodes != null && nodes < 1) throw new UsageException("lpf run: --nodes " + nodes + ": give 1 or more");
        if (nodes != null && procs == null) {
            throw new UsageException("lpf run: --nodes " + nodes + " needs -p N: it spreads the N processes that lpf run"
                    + " starts over that many nodes (without -p the job runs in the JVMs it was started in)");
        }
        if (profileDir != null) Profile.check(profileDir);
        try (ParameterScope scope = engineOptions.apply("lpf run", procs)) {
            if (debug) scope.set("lpf.debug", "true");
            checkpointing(scope);
            if (nodes != null) {
                String key = org.lpf4j.spi.kit.LaunchNodes.key(selected().name());
                if (org.lpf4j.spi.ParameterRegistry.global().find(key).isEmpty()) {
                    throw new UsageException("lpf run: --nodes needs an engine that runs several processes per JVM;"
                            + " engine " + selected().name() + " has no parameter " + key);
                }
                try {
                    scope.set(key, nodes.toString());
                } catch (IllegalArgumentException e) {
                    throw new UsageException("lpf run: --nodes " + nodes + ": " + e.getMessage());
                }
            }
            java.util.Optional<ProcessLauncher> launcher = procs == null ? java.util.Optional.empty() : selected().launcher();
            ClassLoader loader = loader();
            Thread thread = Thread.currentThread();
            ClassLoader saved = thread.getContextClassLoader();
            thread.setContextClassLoader(loader);
            try {
                // A launching side only names the program's kind: its static initialisers run in the processes.
                Program program = Program.find(className, loader, launcher.isEmpty());
                if (profileDir != null && program instanceof Program.MainProgram) {
                    throw new UsageException("lpf run: --profile needs an org.lpf4j.Spmd class (lpf run starts its section);"
                            + " " + className + " has a main method that starts its own");
                }
                selected(); // an engine that is not installed is refused here, not after the directories are made
                if (launcher.isEmpty() && program instanceof Program.MainProgram) {
                    exactMachine();
                    if (restarts > 0) {
                        throw new UsageException("lpf run: --restarts needs an org.lpf4j.Spmd program; "
                                + className + " has a main method, which chooses its own sections");
                    }
                }
                // Only now, when the run is no longer refused, are the option's directories made.
                profile = profileDir == null ? null : Profile.start(profileDir);
                makeCheckpointDir();
                if (launcher.isPresent()) {
                    // The header is printed once, here; the launched processes (--launched) print none.
                    printHeader(out, program);
                    return launchWithRestarts(launcher.get(), out);
                }
                switch (program) {
                    case Program.SpmdProgram spmd -> runSpmd(spmd, out);
                    case Program.MainProgram main -> {
                        printHeader(out, program);
                        main.run(programArgs.toArray(String[]::new));
                    }
                }
            } finally {
                thread.setContextClassLoader(saved);
                if (loader instanceof URLClassLoader own) closeQuietly(own);
            }
        }
        out.flush();
        return 0;
    }

    /**
     * A main's {@code exec(Lpf.MAX_P)} gets the machine size, so with {@code -p N} in this JVM the
     * engine must have made it N ({@link EngineProvider#settingsForProcesses}); an engine that could
     * not (one already launched as a job of another size) is refused before the program starts.
     */
    private void exactMachine() {
        if (procs == null) return;
        EngineProvider engine = selected();
        int size = engine.machineSize();
        if (size != procs) {
            throw new UsageException("lpf run: -p " + procs + ": the " + engine.name() + " engine provides " + size
                    + " processes in this JVM (its machine size, which it cannot change here), so the program's"
                    + " Lpf.MAX_P would be " + size + ", not " + procs + "; give -p " + size + " or start the job with "
                    + procs + " processes");
        }
    }

    private static void closeQuietly(URLClassLoader loader) {
        try {
            loader.close();
        } catch (java.io.IOException e) {
            // only open jar files are released; nothing to report
        }
    }

    private void printHeader(PrintWriter out, Program program) {
        if (launched) return;
        out.println(header(program instanceof Program.SpmdProgram));
        out.flush();
    }

    private void runSpmd(Program.SpmdProgram program, PrintWriter out) {
        Context root = EngineOptions.root("lpf run");
        // After the root: under a launcher started by hand, only the process that runs the section
        // gets here (the others serve sections inside Lpf.root()), so the header is printed once.
        printHeader(out, program);
        String engine = Lpf.engine().name();
        int p = procs != null ? procs : Lpf.engine().machineSize();
        SectionTiming timing = new SectionTiming(p, profile);
        MemorySegment output;
        Restarts.Outcome outcome = null;
        try (Arena arena = Arena.ofShared()) {
            // One byte more than the program gets: the text always has a terminating zero.
            MemorySegment buffer = arena.allocate(OUTPUT_BYTES + 1);
            output = buffer.asSlice(0, OUTPUT_BYTES);
            Args args = new Args(MemorySegment.NULL, output, new ArrayList<>(programArgs));
            FatalException failure = null;
            try {
                if (restarts > 0 || resume || attempt > 0 || checkpointDir != null) {
                    // Without --restarts (also in the JVMs a launcher started: their lpf run restarts the launcher)
                    // there is no retry to report, and the failure itself is reported below.
                    outcome = Restarts.exec(root, p, timing.wrap(program.perProcess()), args, restarts, resume, line -> {
                        if (restarts == 0) return;
                        out.println("lpf run: " + line);
                        out.flush();
                    }, attempt, runId());
                } else {
                    root.exec(p, timing.wrap(program.perProcess()), args);
                }
            } catch (FatalException e) {
                failure = e;
            } finally {
                timing.close();
            }
            out.print(buffer.getString(0));
            if (failure != null) {
                if (profile != null) profile.discard(p);
                out.flush();
                throw new ProgramFailure("the SPMD section of " + program.type().getName() + " failed: "
                        + failure.getMessage(), failure);
            }
        }
        out.println("lpf run: " + program.type().getName() + " on the " + engine + " engine: "
                + withResumptions(timing.summary(), outcome));
        if (profile != null) profile.report(timing.processes(), program.type().getSimpleName() + " on the " + engine + " engine", out);
    }

    /**
     * The summary with, at the end of its first line, where each restart resumed and how many
     * iterations it did again (what process 0's {@code Checkpoints.resume} found).
     */
    static String withResumptions(String summary, Restarts.Outcome outcome) {
        String resumed = outcome == null ? "" : outcome.describeResumptions();
        if (resumed.isEmpty()) return summary;
        int end = summary.indexOf('\n');
        return end < 0 ? summary + "  " + resumed : summary.substring(0, end) + "  " + resumed + summary.substring(end);
    }

    /**
     * The first line of every run, printed once: whether the debug layer is on, the engine and p,
     * and where each came from (an option, a parameter and its source, or a default); for a main,
     * which chooses p itself, what its {@code Lpf.MAX_P} is and where that came from. A run
     * delegated to a launcher prints it before the launch, and its processes print none.
     *
     * @param spmd whether lpf run starts the section (else the program's main chooses p)
     */
    String header(boolean spmd) {
        EngineProvider engine = selected();
        Parameter<String> choice = org.lpf4j.spi.Engines.choice();
        String engineFrom = engineOptions.engine != null ? "--engine " + engineOptions.engine
                : choice.get().isEmpty() ? "the usable engine of highest priority"
                : choice.key() + "=" + choice.get() + " from " + choice.source().label();
        boolean launching = procs != null && engine.launcher().isPresent();
        // A main may ask for Lpf.MAX_P: say what that is and where it came from.
        String maxP = procs == null ? "Lpf.MAX_P = " + machineSize(engine)
                : "Lpf.MAX_P = " + procs + " from -p " + procs + (launching ? ": a job of " + procs + " processes" : "");
        String p = !spmd ? "p chosen by the program's main (" + maxP + ")"
                : procs != null ? "p = " + procs + " (-p " + procs + ")"
                : "p = " + engine.machineSize() + " (" + machineSize(engine) + ")";
        if (nodes != null) p += ", " + nodes + " JVMs (--nodes " + nodes + ")";
        String debugFrom = debug ? "--debug" : "lpf.debug from " + Lpf.DEBUG.source().label();
        return "lpf run" + (Lpf.DEBUG.get() ? " [debug layer on (" + debugFrom + "): programming errors are reported"
                + " with file:line; slower]" : "") + ": " + className + " on the " + engine.name() + " engine ("
                + engineFrom + "), " + p;
    }

    /** "machine size N" and, if the engine has a {@code procs} parameter, its value's source. */
    private static String machineSize(EngineProvider engine) {
        String text = "machine size " + engine.machineSize();
        var procs = org.lpf4j.spi.ParameterRegistry.global().find("lpf.engine." + engine.name() + ".procs");
        return procs.map(q -> text + ": " + q.key() + " from " + q.source().label()).orElse(text);
    }

    private static EngineProvider selected() {
        try {
            return Lpf.engine();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw EngineOptions.usage("lpf run", e);
        }
    }

    /**
     * Sets the cr parameters the checkpoint options ask for, or fails with a usage error before
     * anything starts.
     */
    private void checkpointing(ParameterScope scope) {
        if (restarts < 0) throw new UsageException("lpf run: --restarts " + restarts + ": give 0 or more");
        if (checkpointDir != null) {
            Path dir = checkpointDir.toAbsolutePath();
            Path existing = dir;
            while (existing != null && !java.nio.file.Files.exists(existing)) existing = existing.getParent();
            if (existing == null || !java.nio.file.Files.isDirectory(existing)) {
                throw new UsageException("lpf run: --checkpoint-dir " + checkpointDir + ": " + existing + " is not a directory");
            }
            if (!java.nio.file.Files.isWritable(existing)) {
                throw new UsageException("lpf run: --checkpoint-dir " + checkpointDir + ": " + (existing.equals(dir) ? "not writable"
                        : "cannot create it: " + existing + " is not writable"));
            }
            scope.set("lpf.cr", "files");
            scope.set("lpf.cr.files.dir", dir.toString());
        }
        if (checkpointEvery != null) {
            try {
                CrSettings.parseDuration("--checkpoint-every", checkpointEvery);
            } catch (IllegalArgumentException e) {
                throw new UsageException("lpf run: " + e.getMessage());
            }
            String module = checkpointDir != null ? "files"
                    : org.lpf4j.spi.Components.installed().choiceParameter(org.lpf4j.spi.Framework.CR).get().trim();
            if (!module.equals("files") && !module.equals("memory")) {
                throw new UsageException("lpf run: --checkpoint-every needs a cr module that keeps checkpoints: "
                        + "--checkpoint-dir DIR (files), or --param lpf.cr=memory on the threads engine");
            }
            scope.set("lpf.cr." + module + ".every", checkpointEvery);
        }
        if (resume) {
            if (checkpointDir == null) throw new UsageException("lpf run: --resume needs --checkpoint-dir DIR");
            scope.set("lpf.cr.files.resume", "true");
        }
    }

    /** Makes {@code --checkpoint-dir} once the run is no longer refused ({@link #checkpointing} checked it could). */
    private void makeCheckpointDir() {
        if (checkpointDir == null) return;
        try {
            java.nio.file.Files.createDirectories(checkpointDir.toAbsolutePath());
        } catch (java.io.IOException e) {
            throw new UsageException("lpf run: --checkpoint-dir " + checkpointDir + ": cannot create it: " + e);
        }
    }

    /**
     * Runs the job under the launcher; if it fails and {@code --restarts} allows, starts it again
     * as the next attempt of the same run, so that it continues from the last complete checkpoint
     * that run made.
     */
    private int launchWithRestarts(ProcessLauncher launcher, PrintWriter out) {
        if (restarts > 0 && checkpointDir == null) {
            out.println("lpf run: note: --restarts without --checkpoint-dir: a restarted job starts from the beginning"
                    + " (on the " + selected().name() + " engine only the files module survives a lost JVM)");
        }
        for (int k = 0; ; k++) {
            int status = Launched.run(launcher, launch(procs, k), out);
            if (status == 0 || status == UsageException.EXIT_CODE) return status;
            if (k >= restarts) {
                if (restarts > 0) {
                    out.println("lpf run: the job failed " + (k + 1) + " times (exit status " + status
                            + "); no restart left (--restarts " + restarts + ")");
                    out.flush();
                }
                return status;
            }
            out.println("lpf run: the job failed (exit status " + status + "); restart " + (k + 1) + " of "
                    + restarts + (checkpointDir != null ? " from the last complete checkpoint in "
                    + checkpointDir.toAbsolutePath() : " from the beginning"));
            out.flush();
        }
    }

    /** What each launched process runs: this command again, without {@code -p} and with {@code --launched}. */
    ProcessLauncher.Launch launch(int p) { return launch(p, 0); }

    /** @return the job's run id: the one this process was launched with, else one made now (once) */
    private String runId() {
        if (runId == null) runId = java.util.UUID.randomUUID().toString();
        return runId;
    }

    private ProcessLauncher.Launch launch(int p, int attemptNumber) {
        List<String> args = new ArrayList<>(List.of("run", "--launched"));
        args.addAll(engineOptions.asArguments());
        if (debug) args.add("--debug");
        if (checkpointDir != null) args.addAll(List.of("--checkpoint-dir", checkpointDir.toAbsolutePath().toString()));
        if (checkpointEvery != null) args.addAll(List.of("--checkpoint-every", checkpointEvery));
        if (checkpointDir != null && resume) args.add("--resume");
        if (checkpointDir != null) args.addAll(List.of("--run-id", runId(), "--attempt", Integer.toString(attemptNumber)));
        if (profile != null) args.addAll(List.of("--profile", profile.dir()));
        if (classPath != null) args.addAll(List.of("--class-path", classPath));
        args.add(className);
        args.addAll(programArgs);
        return thisJvm(p, LpfCommand.class.getName(), args);
    }

    /** @return a launch of {@code p} JVMs like this one (same java, class path and JVM options) running {@code mainClass} */
    static ProcessLauncher.Launch thisJvm(int p, String mainClass, List<String> args) {
        String javaCommand = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        return new ProcessLauncher.Launch(p, javaCommand, System.getProperty("java.class.path"),
                java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments(), mainClass, args);
    }

    private ClassLoader loader() {
        ClassLoader parent = Thread.currentThread().getContextClassLoader();
        if (parent == null) parent = RunCommand.class.getClassLoader();
        if (classPath == null || classPath.isEmpty()) return parent;
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.isEmpty()) continue;
            File f = new File(entry);
            if (!f.exists()) throw new UsageException("lpf run: --class-path entry '" + entry + "' does not exist");
            try {
                urls.add(f.toURI().toURL());
            } catch (MalformedURLException e) {
                throw new UsageException("lpf run: --class-path entry '" + entry + "': " + e.getMessage());
            }
        }
        return new URLClassLoader(urls.toArray(URL[]::new), parent);
    }
}
