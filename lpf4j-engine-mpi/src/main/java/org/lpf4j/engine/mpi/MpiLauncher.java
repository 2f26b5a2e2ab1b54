package org.lpf4j.engine.mpi;

import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.spi.kit.LauncherEnvironment;
import org.lpf4j.spi.kit.Slurm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds the command line and environment that start {@code n} JVMs as one MPI job: {@code mpirun}
 * of Open MPI, {@code mpiexec.mpich} of MPICH, or Slurm's {@code srun} (with the MPI plugin the library
 * needs, {@link #srunPlugin}). It adds
 * what the JVMs need on every machine: as root {@code --allow-run-as-root}; {@code --oversubscribe}
 * (more ranks than cores is normal for tests); {@code --bind-to none} (a JVM's GC and JIT threads must
 * not share one core); {@code UCX_ERROR_SIGNALS=} (UCX, under MPICH, would otherwise replace the JVM's
 * SIGSEGV handler, which the JVM needs for implicit null checks; the engine also sets it itself before
 * it loads libmpi); native access for the engine. The launcher must belong to the library the ranks
 * load ({@link #forLibrary}): under another MPI's launcher each rank is an MPI job of one process.
 *
 * <p>Cost: builds lists; starts nothing.
 */
public final class MpiLauncher implements ProcessLauncher {
    /** Which launcher to use. */
    public enum Kind {
        /** Open MPI's {@code mpirun}. */
        OPEN_MPI,
        /** MPICH's Hydra {@code mpiexec.mpich}. */
        MPICH,
        /** Slurm's {@code srun} (inside an allocation, or where {@code lpf.engine.mpi.launcher=srun}). */
        SRUN
    }

    private final Kind kind;
    /** The library the ranks load, as configured ({@code lpf.engine.mpi.library}), or null for the kind's default. */
    private final String library;
    /** Under srun: whether the ranks load MPICH (they need Slurm's PMI-2 plugin; Open MPI's need PMIx). */
    private final boolean mpich;
    private final List<String> launcherOptions = new ArrayList<>();
    private boolean loopbackOnly;

    /** @param kind which launcher (its ranks load that MPI's usual library) */
    public MpiLauncher(Kind kind) {
        this(kind, null, kind == Kind.MPICH);
    }

    private MpiLauncher(Kind kind, String library, boolean mpich) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.library = library;
        this.mpich = mpich;
    }

    /** @return {@link #forLibrary} of the configured library ({@code lpf.engine.mpi.library}) */
    public static MpiLauncher forThisMachine() {
        return forLibrary(MpiParameters.LIBRARY.get());
    }

    /**
     * The launcher {@code lpf run --engine mpi -p N} starts, as {@code lpf.engine.mpi.launcher}
     * says: {@code srun}; {@code mpirun}, the launcher of the MPI the library that would load is part
     * of, judged by its file name ({@link MpiAbi#byFileName}: libmpich is MPICH's, started by Hydra;
     * libmpi.so is Open MPI's, started by its mpirun; if the name does not tell, Open MPI's when it
     * is installed, else MPICH's); or {@code auto}: srun inside a Slurm allocation ({@link Slurm#allocation}:
     * {@code salloc}, {@code sbatch}) when srun is on the PATH, else mpirun. A launcher of the other
     * MPI would start every rank as an MPI singleton. Whether the launcher is installed:
     * {@link #available()}. Loads nothing.
     *
     * @param library a libmpi path or soname, or empty for the usual sonames
     * @return the launcher, with its ranks loading that library
     */
    public static MpiLauncher forLibrary(String library) {
        String configured = library == null || library.isBlank() ? null : library.strip();
        String file = MpiLibrary.locate(configured == null ? "" : configured);
        MpiAbi abi = file != null ? MpiAbi.byFileName(file) : configured != null ? MpiAbi.byFileName(configured) : null;
        Kind kind = abi == MpiAbi.MPICH ? Kind.MPICH : abi == MpiAbi.OPEN_MPI ? Kind.OPEN_MPI
                : new MpiLauncher(Kind.OPEN_MPI).available() ? Kind.OPEN_MPI : Kind.MPICH;
        boolean srun = switch (MpiParameters.LAUNCHER.get()) {
            case "srun" -> true;
            case "mpirun" -> false;
            default -> (Slurm.allocation() || Slurm.singleTaskStep(System::getenv)) && onPath("srun");
        };
        return new MpiLauncher(srun ? Kind.SRUN : kind, configured, kind == Kind.MPICH);
    }

    /**
     * @return for {@code lpf info}: the launcher {@code lpf run -p N} would start here and why
     *         (the parameter's value, and whether this process is inside a Slurm allocation)
     */
    public String describe() {
        String choice = MpiParameters.LAUNCHER.get();
        String why = !choice.equals("auto") ? MpiParameters.LAUNCHER.key() + "=" + choice
                : kind == Kind.SRUN ? "auto: inside Slurm allocation " + System.getenv(Slurm.JOB_ID)
                        + (Slurm.stepTask(System::getenv) ? ", the only task of step " + System.getenv(Slurm.STEP_ID) : "")
                : Slurm.allocation() ? "auto: inside a Slurm allocation, but srun is not on the PATH"
                : "auto: not inside a Slurm allocation";
        String what = switch (kind) {
            case OPEN_MPI, MPICH -> executable().orElse("none found");
            case SRUN -> "srun --mpi=" + srunPlugin().orElse("? (" + unavailableReason() + ")");
        };
        return what + " (" + why + ")";
    }

    /**
     * @return the Slurm MPI plugin this launcher's ranks need, if the installed srun has it:
     *         {@code pmix} (or a versioned {@code pmix_v*}) for Open MPI, whose Debian build has
     *         only a PMIx client; {@code pmi2} for MPICH, which under PMIx would run every task as
     *         a singleton
     */
    Optional<String> srunPlugin() {
        return srunPlugin(mpich, Slurm.mpiPlugins());
    }

    static Optional<String> srunPlugin(boolean mpich, List<String> offered) {
        if (mpich) return offered.contains("pmi2") ? Optional.of("pmi2") : Optional.empty();
        if (offered.contains("pmix")) return Optional.of("pmix");
        return offered.stream().filter(p -> p.startsWith("pmix_v")).findFirst();
    }

    /** @return whether an executable of that name is on the PATH */
    static boolean onPath(String exe) {
        return which(exe, System.getenv("PATH")) != null;
    }

    private static Path which(String exe, String path) {
        if (path == null) return null;
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, exe))) return Path.of(dir, exe);
        }
        return null;
    }

    /** @return whether this launcher's executable is on the PATH ({@link #executable()}) */
    public boolean available() {
        return executable().isPresent();
    }

    /**
     * @return the launcher's executable on the PATH: a name only this MPI's launcher has
     *         ({@code mpirun.openmpi}, {@code mpiexec.mpich}, ...), else a plain {@code mpiexec} or
     *         {@code mpirun} whose real file is this MPI's (Open MPI's {@code orterun}/{@code prterun},
     *         MPICH's {@code mpiexec.hydra}; on Debian both are reached through alternatives links),
     *         else one whose {@code --version} names this MPI (run only when no file name tells)
     */
    public Optional<String> executable() {
        return executable(System.getenv("PATH")).map(p -> p.getFileName().toString());
    }

    /** @return {@link #executable()} as found on {@code path} (a PATH value), as a path */
    Optional<Path> executable(String path) {
        return switch (kind) {
            case OPEN_MPI -> find(path, List.of("mpirun.openmpi", "mpiexec.openmpi"), List.of("orterun", "prterun", "openmpi"),
                    List.of("OpenRTE", "Open MPI"));
            case MPICH -> find(path, List.of("mpiexec.mpich", "mpirun.mpich", "mpiexec.hydra"), List.of("hydra", "mpich"),
                    List.of("HYDRA"));
            case SRUN -> Optional.ofNullable(which("srun", path)).filter(p -> srunPlugin().isPresent());
        };
    }

    /**
     * @param own      names only this MPI's launcher has
     * @param marks    words in the real path of this MPI's plain mpiexec/mpirun
     * @param versions words in its {@code --version} text
     */
    private static Optional<Path> find(String path, List<String> own, List<String> marks, List<String> versions) {
        for (String e : own) {
            Path p = which(e, path);
            if (p != null) return Optional.of(p);
        }
        List<Path> unknown = new ArrayList<>();
        for (String e : List.of("mpiexec", "mpirun")) {
            Path p = which(e, path);
            if (p == null) continue;
            String real;
            try {
                real = p.toRealPath().toString();
            } catch (java.io.IOException ex) {
                continue;
            }
            if (marks.stream().anyMatch(real::contains)) return Optional.of(p);
            if (!KNOWN_PATHS.matcher(real).find()) unknown.add(p);
        }
        for (Path p : unknown) {
            String v = versionText(p);
            if (versions.stream().anyMatch(v::contains)) return Optional.of(p);
        }
        return Optional.empty();
    }

    /** Real paths that tell which MPI a plain mpiexec/mpirun is (see {@link #executable()}). */
    private static final java.util.regex.Pattern KNOWN_PATHS = java.util.regex.Pattern.compile("orterun|prterun|openmpi|hydra|mpich");

    /** @return what {@code exe --version} prints within 10 s, or "" */
    private static String versionText(Path exe) {
        return output(exe.toString(), "--version");
    }

    /** @return what {@code command} prints (standard output and error) within 10 s, or "" if it cannot start or takes longer */
    static String output(String... command) { return Slurm.output(command); }

    /**
     * @return why {@link #available()} is false, for the engine's refusal: which MPI the library
     *         belongs to and which launchers were looked for
     */
    public String unavailableReason() {
        String lib = "the MPI library " + (library() != null ? library() : "libmpi.so.40");
        return switch (kind) {
            case OPEN_MPI -> lib + " is Open MPI's, and Open MPI's launcher is not on the PATH (looked for mpirun.openmpi,"
                    + " mpiexec.openmpi, and an mpirun or mpiexec that is Open MPI's orterun/prterun)";
            case MPICH -> lib + " is MPICH's, and MPICH's launcher is not on the PATH (looked for mpiexec.mpich,"
                    + " mpirun.mpich, mpiexec.hydra, and an mpiexec or mpirun that is MPICH's Hydra)";
            case SRUN -> !onPath("srun") ? "srun is not on the PATH" : lib + " is " + (mpich ? "MPICH's, which needs Slurm's"
                    + " PMI-2 plugin" : "Open MPI's, which needs Slurm's PMIx plugin") + ", and srun --mpi=list offers only "
                    + Slurm.mpiPlugins() + " (lpf.engine.mpi.launcher=mpirun starts mpirun instead)";
        } + "; a launcher of another MPI would start every rank as a job of one process";
    }

    /** @return the launcher kind */
    public Kind kind() { return kind; }

    /**
     * Keeps MPI's traffic on the loopback interface (for tests on one machine).
     *
     * @return this
     */
    public MpiLauncher loopbackOnly() {
        loopbackOnly = true;
        return this;
    }

    /**
     * Adds options for the launcher itself, e.g. {@code --hostfile f} or {@code --host a,b}.
     *
     * @param options passed through unchanged, before the program
     * @return this
     */
    public MpiLauncher launcherOptions(List<String> options) {
        launcherOptions.addAll(options);
        return this;
    }

    /**
     * For an engine layered on this one with one JVM per node (the hybrid engine): under srun in an
     * allocation of at least {@code n > 1} nodes, asks for {@code n} nodes with one task each
     * ({@code -N n --ntasks-per-node=1}); with hosts given ({@code lpf.engine.mpi.launcherOptions}),
     * Open MPI places one rank per node ({@code --map-by ppr:1:node}, unless the options map
     * otherwise) and Hydra as the hosts say.
     *
     * @param n the JVMs to start
     * @return whether the JVMs go to different nodes (else they share this one and stand for nodes)
     */
    public boolean onePerNode(int n) {
        if (kind == Kind.SRUN) {
            if (n < 2 || Slurm.allocationNodes() < n) return false;
            launcherOptions(List.of("-N", Integer.toString(n), "--ntasks-per-node=1"));
            return true;
        }
        String hosts = MpiParameters.LAUNCHER_OPTIONS.get();
        if (hosts.isBlank()) return false;
        if (kind == Kind.OPEN_MPI && !hosts.contains("--map-by")) launcherOptions(List.of("--map-by", "ppr:1:node"));
        return true;
    }

    /** @return the MPI library this launcher's JVMs must load ({@code lpf.engine.mpi.library}), or null for the default */
    public String library() {
        if (library != null) return library;
        return mpich ? "libmpich.so.12" : null;
    }

    /**
     * @param n       the number of processes
     * @param program the command every process runs (e.g. from {@link #javaCommand})
     * @return the full command line
     */
    public List<String> command(int n, List<String> program) {
        return command(n, program, false);
    }

    /**
     * The launcher's command for {@code n} processes, wrapped so that a rank that dies is named
     * after the launcher has ended: a {@code /bin/sh} makes a report directory, passes it to the
     * ranks ({@value RankGuard#REPORTS}; the {@link RankGuard} of the first rank that dies writes
     * its line there), runs the launcher, and if the launcher failed prints that line on standard
     * error (after 0.3 s, for a guard still writing) before exiting with the launcher's status. Hydra
     * names no rank and may stop forwarding the ranks' output at once when one dies; this way
     * the line reaches the user under every launcher. The directory goes also when the shell gets
     * SIGINT, SIGTERM or SIGHUP (exit status 130, 143, 129); the shell acts on them once the
     * launcher has ended, so a signal meant to end the job must reach the launcher too, as a
     * terminal's Ctrl-C does.
     *
     * @param n       the number of processes
     * @param program the command every process runs
     * @return the full command line
     */
    public List<String> commandReportingDeaths(int n, List<String> program) {
        List<String> cmd = reportingPrefix();
        cmd.addAll(command(n, program, true));
        return cmd;
    }

    private static List<String> reportingPrefix() {
        return new ArrayList<>(List.of("/bin/sh", "-c", REPORTING, "lpf4j-mpi-launch"));
    }

    /** @return {@code program} inside the wrapper of {@link #commandReportingDeaths} (for its tests) */
    static List<String> reporting(List<String> program) {
        List<String> cmd = reportingPrefix();
        cmd.addAll(program);
        return cmd;
    }

    // The directory goes on every way out the shell can see: the launcher's end, and an interrupt,
    // termination or hang-up (a terminal's Ctrl-C reaches the launcher and the shell alike; the
    // shell's trap runs once the launcher has ended). The traps come before the directory, so no
    // signal falls between the two.
    private static final String REPORTING = "dir=; "
            + "clean() { [ -n \"$dir\" ] || return 0; [ -f \"$dir/" + DeathLatch.KEY_FILE + "\" ] && ipcrm -S \"$(cat \"$dir/"
            + DeathLatch.KEY_FILE + "\")\" 2>/dev/null; rm -rf \"$dir\"; }; "
            + "trap 'clean; exit 130' INT; trap 'clean; exit 143' TERM; trap 'clean; exit 129' HUP; "
            + "dir=$(mktemp -d \"${TMPDIR:-/tmp}/lpf4j-mpi.XXXXXX\") || exec \"$@\"; "
            + RankGuard.REPORTS + "=$dir; export " + RankGuard.REPORTS + "; "
            + "\"$@\"; rc=$?; "
            + "if [ \"$rc\" -ne 0 ]; then sleep 0.3; [ -f \"$dir/" + RankGuard.FIRST + "\" ] && cat \"$dir/" + RankGuard.FIRST + "\" >&2; fi; "
            + "clean; exit \"$rc\"";

    private List<String> command(int n, List<String> program, boolean reports) {
        if (n < 1) throw new IllegalArgumentException("MpiLauncher.command(n=" + n + "): at least one process");
        List<String> cmd = new ArrayList<>();
        switch (kind) {
            case OPEN_MPI -> {
                cmd.add(executable().orElse("mpirun"));
                if (isRoot()) cmd.add("--allow-run-as-root");
                cmd.addAll(List.of("--oversubscribe", "--bind-to", "none", "-x", LauncherEnvironment.UCX_ERROR_SIGNALS));
                if (reports) cmd.addAll(List.of("-x", RankGuard.REPORTS));
                if (loopbackOnly) {
                    cmd.addAll(List.of("--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo"));
                }
            }
            case MPICH -> {
                cmd.add(executable().orElse("mpiexec"));
                if (loopbackOnly) cmd.addAll(List.of("-iface", "lo"));
            }
            case SRUN -> cmd.addAll(Slurm.srunCommand(executable().orElse("srun"), srunPlugin().orElse("pmix")));
        }
        cmd.addAll(launcherOptions);
        cmd.add("-n");
        cmd.add(Integer.toString(n));
        cmd.addAll(program);
        return cmd;
    }

    /**
     * The environment the launcher needs (set it on the launcher's process; Hydra and srun pass the
     * whole environment on, Open MPI passes the variables named by {@code -x}).
     *
     * @param env the environment to complete
     */
    public void environment(Map<String, String> env) {
        env.put(LauncherEnvironment.UCX_ERROR_SIGNALS, "");
        if (kind == Kind.OPEN_MPI && isRoot()) {
            env.put(LauncherEnvironment.OMPI_ALLOW_RUN_AS_ROOT, "1");
            env.put(LauncherEnvironment.OMPI_ALLOW_RUN_AS_ROOT_CONFIRM, "1");
        }
    }

    /**
     * @param n          the number of processes of the job (nested sections on the threads engine may
     *                   use up to n threads: {@code lpf.engine.threads.procs}, unless jvmOptions say otherwise)
     * @param javaHome   the JDK to run
     * @param jvmOptions options such as {@code -Xmx} or {@code -D...}
     * @param classPath  the class path
     * @param mainClass  the class whose {@code main} every process runs
     * @param args       its arguments
     * @return a java command line for every rank, with native access enabled and the MPI library chosen
     */
    public List<String> javaCommand(int n, Path javaHome, List<String> jvmOptions, String classPath, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaHome.resolve("bin").resolve("java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        if (library() != null) cmd.add("-Dlpf.engine.mpi.library=" + library());
        cmd.add("-Dlpf.engine.threads.procs=" + n);
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /**
     * The command {@code lpf run --engine mpi -p N} runs: {@code env} with the variables of
     * {@link #environment} (and, under srun with more ranks than the allocation's cores, Open MPI's
     * {@code mpi_yield_when_idle}, which mpirun's {@code --oversubscribe} implies; with Open MPI under
     * any launcher when {@code lpf.engine.mpi.wait=poll} asks the ranks to yield: a hostfile's hosts
     * that share cores), then the launcher,
     * then the JVM command with native access enabled,
     * all inside the wrapper of {@link #commandReportingDeaths} (a rank that dies is named).
     * Options for the launcher itself (hosts, hostfile) come from {@code lpf.engine.mpi.launcherOptions}.
     */
    @Override
    public List<String> command(Launch launch) {
        List<String> opts = MpiParameters.LAUNCHER_OPTIONS.get().isBlank() ? List.of()
                : List.of(MpiParameters.LAUNCHER_OPTIONS.get().strip().split("\\s+"));
        launcherOptions(opts);
        int nodes = MpiParameters.LAUNCH_NODES.get();
        if (nodes > 0) {
            if (kind != Kind.SRUN) {
                throw new IllegalArgumentException("lpf run --engine mpi --nodes " + nodes + ": only srun places ranks on a number"
                        + " of nodes; with " + executable().orElse("mpirun") + " give the hosts in lpf.engine.mpi.launcherOptions"
                        + " (e.g. --hostfile hosts)");
            }
            if (!launcherOptions.contains("-N")) launcherOptions(List.of("-N", Integer.toString(nodes)));
        }
        Map<String, String> env = new java.util.TreeMap<>();
        environment(env);
        if (!mpich && System.getenv(YIELD) == null && (askedToYield() || kind == Kind.SRUN
                && launch.processes() > Runtime.getRuntime().availableProcessors() * (long) Math.max(1, Slurm.allocationNodes()))) {
            // mpirun --oversubscribe makes Open MPI yield when idle; under srun it spins, and the ranks
            // that wait starve the ones that work (figures: docs/performance-log.md). Hosts that look
            // like hosts of their own to mpirun (slots=K, K ranks) but share cores (bin/emulated-hosts)
            // say so by lpf.engine.mpi.wait=poll.
            env.put(YIELD, "1");
        }
        List<String> cmd = reportingPrefix();
        cmd.add("env");
        env.forEach((k, v) -> cmd.add(k + "=" + v));
        List<String> jvm = new ArrayList<>(launch.jvmOptions());
        List<String> program = new ArrayList<>();
        program.add(launch.javaCommand());
        program.add("--enable-native-access=ALL-UNNAMED");
        if (library() != null) program.add("-Dlpf.engine.mpi.library=" + library());
        program.add("-Dlpf.engine.threads.procs=" + launch.processes());
        program.addAll(jvm);
        program.add("-cp");
        program.add(launch.classPath());
        program.add(launch.mainClass());
        program.addAll(launch.args());
        cmd.addAll(command(launch.processes(), program, true));
        return cmd;
    }

    /** @return whether the ranks were asked to wait by polling and yielding the core ({@code lpf.engine.mpi.wait=poll}) */
    private static boolean askedToYield() { return "poll".equals(MpiParameters.WAIT.get()); }

    /** Open MPI's setting to yield the core while waiting. */
    private static final String YIELD = LauncherEnvironment.OMPI_YIELD_WHEN_IDLE;

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }
}
