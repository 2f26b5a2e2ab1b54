package org.lpf4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs one MPI job of JVMs for a test: the MPI engine's launcher's command with the test class path
 * (as {@code lpf run} starts it: {@code MpiLauncher.commandReportingDeaths}, so a rank that dies is
 * named; the launcher is reached by name, {@link MpiLauncherHandle}), a bounded
 * timeout, the whole process tree killed in {@code finally}, and a check that no JVM, {@code mpirun},
 * {@code mpiexec}, {@code orted} or {@code hydra_pmi_proxy} of the job is left afterwards (each JVM carries a unique {@code -Dlpf.test.job=}
 * marker, so the check finds exactly this job's processes). Without the launcher or the library the
 * test is skipped, or fails under CI ({@link Needs}).
 */
public final class MpiJob {
    /** What a job did. */
    public record Result(int exitCode, String out, String err, boolean timedOut, List<String> ghosts) {
        /** @return stdout and stderr, for assertion messages */
        public String both() { return "exit " + exitCode + (timedOut ? " (TIMED OUT)" : "") + "\n--- stdout\n" + out + "\n--- stderr\n" + err; }
    }

    private final MpiLauncherHandle launcher;
    private final List<String> jvmOptions = new ArrayList<>();
    private final List<String> prefix = new ArrayList<>();

    private MpiJob(MpiLauncherHandle launcher, List<String> prefix) {
        this.launcher = launcher;
        this.prefix.addAll(prefix);
        jvmOptions.addAll(List.of("-Xss1m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"));
    }

    /** @return a job over Open MPI */
    public static MpiJob openMpi() { return new MpiJob(MpiLauncherHandle.of("OPEN_MPI").loopbackOnly(), List.of()); }

    /** @return a job over MPICH */
    public static MpiJob mpich() { return new MpiJob(MpiLauncherHandle.of("MPICH").loopbackOnly(), List.of()); }

    /**
     * A job over Open MPI that is not kept on loopback: the launcher gets {@code launcherOptions}
     * (hostfile, agent, interfaces) and its command runs behind {@code prefix} (e.g.
     * {@code ip netns exec ns}). For tests that spread a job over network namespaces.
     */
    public static MpiJob openMpiAcross(List<String> prefix, List<String> launcherOptions) {
        return new MpiJob(MpiLauncherHandle.of("OPEN_MPI").launcherOptions(launcherOptions), prefix);
    }

    /**
     * Starts the launcher as a user would by hand ({@code MpiLauncher.command(int, List)}, without
     * the wrapper that prints a dead rank's report after the launcher ends); returns this.
     */
    public MpiJob byHand() {
        byHand = true;
        return this;
    }

    private boolean byHand;

    private final List<String> unset = new ArrayList<>();

    /**
     * Removes variables from the launcher's environment, after the launcher's own settings
     * ({@code MpiLauncher.environment}) and whatever this JVM inherited: a job as started by a user
     * who never set them. Returns this.
     */
    public MpiJob unsetEnvironment(String... names) {
        unset.addAll(List.of(names));
        return this;
    }

    /** @return whether the launcher starts without lpf run's wrapper ({@link #byHand()}) */
    public boolean isByHand() {
        return byHand;
    }

    /** Adds JVM options (e.g. {@code -Dlpf.engine=mpi}); returns this. */
    public MpiJob jvm(String... options) {
        jvmOptions.addAll(List.of(options));
        return this;
    }

    /** @return the class path of the test JVM (surefire's, when run by Maven) */
    public static String testClassPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    /**
     * Runs {@code mainClass} on {@code n} ranks.
     *
     * @return what happened; never leaves a process of the job running
     */
    public Result run(int n, Duration timeout, Class<?> mainClass, String... args) {
        return run(n, timeout, mainClass.getName(), args);
    }

    /**
     * Runs {@code main} on {@code n} ranks: a class name, or the path of a {@code .java} file that
     * the Java source launcher compiles in each JVM (its classes then live in the launcher's own
     * class loader, not the application's).
     *
     * @return what happened; never leaves a process of the job running
     */
    public Result run(int n, Duration timeout, String main, String... args) {
        // Without MPI installed the job cannot start: skip, or fail under CI (which installs Open MPI and MPICH).
        Needs.that(launcher.available(), () -> launcher.kind() + " launcher not installed");
        Needs.that(launcher.libraryInstalled(), () -> "libmpi for " + launcher.kind() + " not installed");
        String marker = UUID.randomUUID().toString();
        List<String> jvm = new ArrayList<>(jvmOptions);
        jvm.add("-Dlpf.test.job=" + marker);
        List<String> cmd = new ArrayList<>(prefix);
        List<String> program = launcher.javaCommand(n, Path.of(System.getProperty("java.home")), jvm,
                testClassPath(), main, List.of(args));
        cmd.addAll(byHand ? launcher.command(n, program) : launcher.commandReportingDeaths(n, program));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        launcher.environment(pb.environment());
        unset.forEach(pb.environment()::remove);
        // Daemons already running belong to someone else's job: only new ones can be ours.
        java.util.Set<Long> daemonsBefore = ProcessHandle.allProcesses().filter(MpiJob::isDaemon)
                .map(ProcessHandle::pid).collect(java.util.stream.Collectors.toSet());
        java.util.Set<String> setsBefore = semaphoreSets();
        Process proc = null;
        boolean killed = false;
        List<ProcessHandle> tree = new ArrayList<>();
        java.util.Set<Long> seen = new java.util.HashSet<>();
        java.util.Set<Path> reportDirs = new java.util.HashSet<>();
        try {
            proc = pb.start();
            CompletableFuture<String> out = ProcessOutput.drain(proc.getInputStream()), err = ProcessOutput.drain(proc.getErrorStream());
            boolean done = waitWatching(proc, timeout, seen);
            if (!done) {
                tree.addAll(proc.descendants().toList());
                reportDirs.addAll(reportDirectories(tree));
                killTree(proc.toHandle(), tree);
                killed = true;
            }
            int code = done ? proc.exitValue() : -1;
            String o = join(out), e = join(err);
            return new Result(code, o, e, !done, ghosts(marker, daemonsBefore, seen));
        } catch (IOException e) {
            throw new UncheckedIOException("MpiJob: could not start " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("MpiJob: interrupted", e);
        } finally {
            if (proc != null) {
                tree.addAll(proc.descendants().toList());
                reportDirs.addAll(reportDirectories(tree));
                killTree(proc.toHandle(), tree);
            }
            reportDirs.forEach(MpiJob::deleteTree); // a killed wrapper could not remove its own
            for (ProcessHandle h : ProcessHandle.allProcesses().filter(h -> carries(h, marker)).toList()) h.destroyForcibly();
            if (killed) removeOrphanedSets(setsBefore);
        }
    }

    /**
     * A job killed from outside ends all its ranks at once: its death latch (a System V semaphore
     * set) records no death and no wrapper is left to remove it. Removes the sets made during the
     * job whose every process that used them is gone (a live job's set always names a live rank).
     */
    private static void removeOrphanedSets(java.util.Set<String> before) {
        for (String id : orphanedSetsSince(before)) command("ipcrm", "-s", id);
    }

    /**
     * @param before the sets that existed before a job ({@link #semaphoreSets})
     * @return the sets made since whose every process that used them is gone: left behind by a
     *         job that ended (a set of a job still running, another test's say, names a live rank)
     */
    public static java.util.Set<String> orphanedSetsSince(java.util.Set<String> before) {
        java.util.Set<String> orphans = new java.util.HashSet<>();
        for (String id : semaphoreSets()) {
            if (before.contains(id)) continue;
            java.util.regex.Matcher row = SEMAPHORE_ROW.matcher(command("ipcs", "-s", "-i", id));
            boolean orphaned = true;
            while (row.find()) {
                long pid = Long.parseLong(row.group(1));
                if (pid != 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) orphaned = false;
            }
            if (orphaned) orphans.add(id);
        }
        return orphans;
    }

    /** A set in {@code ipcs -s} (key, id), and a semaphore's row in {@code ipcs -s -i} (its last pid last). */
    private static final java.util.regex.Pattern SEMAPHORE_SET = java.util.regex.Pattern.compile("(?m)^0x\\p{XDigit}+\\s+(\\d+)\\s"),
            SEMAPHORE_ROW = java.util.regex.Pattern.compile("(?m)^\\d+\\s+\\d+\\s+\\d+\\s+\\d+\\s+(\\d+)\\s*$");

    /** @return the ids of the System V semaphore sets that exist now ({@code ipcs -s}; none if it cannot run) */
    public static java.util.Set<String> semaphoreSets() {
        java.util.Set<String> ids = new java.util.HashSet<>();
        java.util.regex.Matcher m = SEMAPHORE_SET.matcher(command("ipcs", "-s"));
        while (m.find()) ids.add(m.group(1));
        return ids;
    }

    /** @return the command's output, or "" if it cannot run within 10 s */
    private static String command(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            CompletableFuture<String> out = ProcessOutput.drain(p.getInputStream());
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "";
            }
            return join(out);
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static String join(CompletableFuture<String> f) {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "(output not read: " + e + ")";
        }
    }

    private static void killTree(ProcessHandle root, List<ProcessHandle> tree) {
        for (ProcessHandle h : tree) h.destroyForcibly();
        root.destroyForcibly();
        for (ProcessHandle h : tree) h.onExit().completeOnTimeout(h, 5, TimeUnit.SECONDS).join();
        root.onExit().completeOnTimeout(root, 5, TimeUnit.SECONDS).join();
    }

    /**
     * Waits for the launcher, noting every 0.2 s the Hydra proxies under it (they are ours however
     * many other jobs run on the machine; their command line has no marker).
     *
     * @return whether the launcher ended within the timeout
     */
    private static boolean waitWatching(Process proc, Duration timeout, java.util.Set<Long> proxies) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            proc.descendants().filter(MpiJob::isProxy).forEach(h -> proxies.add(h.pid()));
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            if (proc.waitFor(Math.min(left, 200_000_000L), TimeUnit.NANOSECONDS)) return true;
        }
    }

    private static boolean isProxy(ProcessHandle h) {
        return h.info().command().map(c -> c.endsWith("/hydra_pmi_proxy")).orElse(false);
    }

    /** @return the report directories ({@code LPF_MPI_REPORTS}) in the environments of these processes */
    private static java.util.Set<Path> reportDirectories(List<ProcessHandle> processes) {
        java.util.Set<Path> dirs = new java.util.HashSet<>();
        String prefix = "LPF_MPI_REPORTS="; // RankGuard.REPORTS (package-private there)
        for (ProcessHandle h : processes) {
            try {
                byte[] environ = java.nio.file.Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "environ"));
                for (String v : new String(environ, java.nio.charset.StandardCharsets.ISO_8859_1).split("\0")) {
                    if (v.startsWith(prefix) && v.length() > prefix.length()) dirs.add(Path.of(v.substring(prefix.length())));
                }
            } catch (IOException | RuntimeException e) {
                // gone already, or not Linux: nothing to learn from it
            }
        }
        return dirs;
    }

    /** Deletes a directory and everything in it, if it is there; quiet if it is not. */
    public static void deleteTree(Path dir) {
        try (var files = java.nio.file.Files.walk(dir)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) java.nio.file.Files.deleteIfExists(f);
        } catch (IOException | RuntimeException e) {
            // already gone (the wrapper ended normally)
        }
    }

    private static boolean carries(ProcessHandle h, String marker) {
        return h.info().commandLine().map(c -> c.contains(marker)).orElse(false)
                || h.info().arguments().map(a -> String.join(" ", a).contains(marker)).orElse(false);
    }

    private static boolean isDaemon(ProcessHandle h) {
        return h.info().command().map(c -> c.endsWith("/orted")).orElse(false);
    }

    /**
     * @return the processes of this job still alive (JVMs and launchers by marker, orted daemons that
     *         were not running before it started, Hydra proxies seen under its launcher), described
     */
    private static List<String> ghosts(String marker, java.util.Set<Long> daemonsBefore, java.util.Set<Long> proxies) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        List<String> left;
        do {
            left = ProcessHandle.allProcesses()
                    .filter(h -> h.isAlive() && (carries(h, marker) || isDaemon(h) && !daemonsBefore.contains(h.pid())
                            || proxies.contains(h.pid()) && isProxy(h)))
                    .map(h -> h.pid() + " " + h.info().commandLine().orElse("?"))
                    .toList();
            if (left.isEmpty()) return left;
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return left;
            }
        } while (System.nanoTime() < deadline);
        return left;
    }

    private static final java.util.regex.Pattern SUMMARY =
            java.util.regex.Pattern.compile("CONFORMANCE tests=(\\d+) succeeded=(\\d+) failed=(\\d+)");

    /**
     * Asserts that a {@link ConformanceMain} job ran at least {@code atLeast} tests, none failed,
     * it exited 0 and left nothing behind; the failures are listed in the message otherwise.
     */
    public static void assertSuitePassed(Result r, int atLeast) {
        org.junit.jupiter.api.Assertions.assertFalse(r.timedOut(), r::both);
        java.util.regex.Matcher m = SUMMARY.matcher(r.out());
        org.junit.jupiter.api.Assertions.assertTrue(m.find(), () -> "no summary line: " + r.both());
        StringBuilder failures = new StringBuilder();
        r.out().lines().filter(l -> l.startsWith("FAILED ")).forEach(l -> failures.append(l).append('\n'));
        org.junit.jupiter.api.Assertions.assertEquals("0", m.group(3), () -> m.group(0) + "\n" + failures + r.both());
        org.junit.jupiter.api.Assertions.assertTrue(Integer.parseInt(m.group(1)) >= atLeast, () -> "too few tests found: " + m.group(0));
        org.junit.jupiter.api.Assertions.assertEquals(0, r.exitCode(), r::both);
        org.junit.jupiter.api.Assertions.assertTrue(r.ghosts().isEmpty(), () -> "processes left behind: " + r.ghosts());
    }
}
