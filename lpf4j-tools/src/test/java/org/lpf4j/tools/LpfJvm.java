package org.lpf4j.tools;

import org.lpf4j.testkit.ProcessOutput;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs {@code lpf} in a real JVM of its own (for commands that start a launcher such as
 * {@code mpirun}): bounded time, the whole process tree killed in {@code finally}, and the
 * processes of the run that are still alive afterwards listed: JVMs by a unique
 * {@code -Dlpf.test.job=} marker, {@code orted} daemons that were not running before, and Hydra's
 * {@code hydra_pmi_proxy} processes seen under the run.
 */
record LpfJvm(int exitCode, boolean done, String out, String err, List<String> ghosts) {
    /** @return stdout and stderr, for assertion messages */
    String both() { return "exit " + exitCode + (done ? "" : " (TIMED OUT)") + "\n--- stdout\n" + out + "\n--- stderr\n" + err; }

    /** Runs {@code lpf args...} and waits at most {@code seconds}. */
    static LpfJvm run(int seconds, String... args) throws Exception {
        return run(seconds, java.util.Map.of(), args);
    }

    /** Runs {@code lpf args...} with {@code env} added to this JVM's environment, and waits at most {@code seconds}. */
    static LpfJvm run(int seconds, java.util.Map<String, String> env, String... args) throws Exception {
        return run(seconds, List.of(), env, args);
    }

    /**
     * Runs {@code lpf args...} in a JVM that also gets {@code jvmOptions} (as {@code LPF_JAVA_OPTS}
     * gives them to bin/lpf), with {@code env} added, and waits at most {@code seconds}.
     */
    static LpfJvm run(int seconds, List<String> jvmOptions, java.util.Map<String, String> env, String... args)
            throws Exception {
        return run(seconds, jvmOptions, env, proc -> {}, args);
    }

    /**
     * As {@link #run(int, List, java.util.Map, String...)}, with {@code during} called on a thread
     * of its own with the started process (e.g. to kill one of its JVMs); its failure fails the run.
     */
    static LpfJvm run(int seconds, List<String> jvmOptions, java.util.Map<String, String> env,
                      java.util.function.Consumer<Process> during, String... args) throws Exception {
        return run(seconds, List.of(), jvmOptions, env, (proc, marker) -> during.accept(proc), args);
    }

    /**
     * As {@link #run(int, List, java.util.Map, java.util.function.Consumer, String...)}, with the JVM
     * started by {@code prefix} (e.g. {@code salloc -n 4}, {@code srun -n 4}: then the JVM is a task,
     * not this process's child), and {@code during} also given the run's marker, which the command
     * line of every JVM of the run carries.
     */
    static LpfJvm run(int seconds, List<String> prefix, List<String> jvmOptions, java.util.Map<String, String> env,
                      java.util.function.BiConsumer<Process, String> during, String... args) throws Exception {
        String marker = UUID.randomUUID().toString();
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xss1m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dlpf.test.job=" + marker));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), LpfCommand.class.getName()));
        cmd.addAll(List.of(args));
        Set<Long> daemonsBefore = ProcessHandle.allProcesses().filter(LpfJvm::isDaemon).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        Process proc = pb.start();
        Set<Long> proxies = new java.util.HashSet<>();
        String out, err;
        boolean done;
        CompletableFuture<Void> action = CompletableFuture.runAsync(() -> during.accept(proc, marker));
        Throwable actionFailure = null;
        try {
            CompletableFuture<String> o = ProcessOutput.drain(proc.getInputStream()), e = ProcessOutput.drain(proc.getErrorStream());
            done = waitWatching(proc, seconds, proxies);
            try {
                action.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException failed) {
                actionFailure = failed.getCause();
            }
            if (!done) killTree(proc);
            out = o.get(10, TimeUnit.SECONDS);
            err = e.get(10, TimeUnit.SECONDS);
        } finally {
            action.cancel(true);
            killTree(proc);
        }
        LpfJvm run = new LpfJvm(done ? proc.exitValue() : -1, done, out, err, ghosts(marker, daemonsBefore, proxies));
        if (actionFailure != null) // the run's own output says why, e.g. a job that failed before what the action waited for
            throw new AssertionError("the action during the run failed: " + actionFailure + "\n" + run.both(), actionFailure);
        return run;
    }

    /** Waits, noting every 0.2 s the Hydra proxies under the run (their command lines carry no marker). */
    private static boolean waitWatching(Process proc, int seconds, Set<Long> proxies) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            proc.descendants().filter(LpfJvm::isProxy).forEach(h -> proxies.add(h.pid()));
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            if (proc.waitFor(Math.min(left, 200_000_000L), TimeUnit.NANOSECONDS)) return true;
        }
    }

    private static boolean isProxy(ProcessHandle h) {
        return h.info().command().map(c -> c.endsWith("/hydra_pmi_proxy")).orElse(false);
    }

    private static void killTree(Process proc) {
        List<ProcessHandle> tree = proc.descendants().toList(); // before they can be orphaned
        if (proc.isAlive()) { // a launcher such as salloc or srun ends its job on SIGTERM; its tasks are not descendants
            proc.destroy();
            try {
                proc.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        tree.forEach(ProcessHandle::destroyForcibly);
        proc.descendants().forEach(ProcessHandle::destroyForcibly);
        proc.destroyForcibly();
    }

    private static boolean isDaemon(ProcessHandle h) {
        return h.info().command().map(c -> c.endsWith("/orted")).orElse(false);
    }

    /** Processes of the run still alive, after giving the dying ones up to 5 s. */
    private static List<String> ghosts(String marker, Set<Long> daemonsBefore, Set<Long> proxies) throws InterruptedException {
        List<String> left = List.of();
        for (int i = 0; i < 50; i++) {
            left = ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                    .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false)
                            || isDaemon(h) && !daemonsBefore.contains(h.pid()) || proxies.contains(h.pid()) && isProxy(h))
                    .map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList();
            if (left.isEmpty()) return left;
            Thread.sleep(100);
        }
        return left;
    }
}
