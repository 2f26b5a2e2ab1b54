package org.lpf4j.tools;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real one-node Slurm cluster for tests, started as root in a private state directory:
 * {@code munged} (own key and socket), {@code slurmctld -D -i} and {@code slurmd -D} on free loopback
 * ports, this host as the node (NodeAddr 127.0.0.1) with 8 CPUs whatever it has
 * ({@code SlurmdParameters=config_overrides}), so {@code salloc -n 4} fits on 2 cores. What this
 * container needs: {@code ProctrackType=proctrack/linuxproc} and {@code TaskPlugin=task/none} (cgroup
 * tracking fails here, and srun then still exits 0), {@code EnforcePartLimits=ALL} (an impossible
 * request fails instead of waiting forever), o+x on every directory above munge's socket. Clients
 * find it through {@link #env()} ({@code SLURM_CONF}). {@link #close()} cancels every job, stops the
 * daemons (SIGTERM, then SIGKILL), kills the step daemons that appeared while it ran and removes the
 * directory. Starting takes about 2 s, stopping about 1.5 s.
 */
final class SlurmCluster implements AutoCloseable {
    private static final List<String> DAEMONS = List.of("munged", "slurmctld", "slurmd", "srun", "salloc", "sbatch", "squeue",
            "scancel", "sinfo");

    private final Path dir;
    private final Path conf;
    private final List<Process> daemons = new ArrayList<>();
    private final Set<Long> stepdsBefore;

    /**
     * @return why a cluster cannot start here (not root, or a program missing), or null if it can
     */
    static String unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) return "the Slurm tests start slurmctld, slurmd and munged as root; running as " + System.getProperty("user.name");
        for (String d : DAEMONS) {
            if (which(d) == null) return d + " is not on the PATH (apt-get install slurm-wlm munge libpmix-dev)";
        }
        return null;
    }

    private static Path which(String exe) {
        for (String d : (System.getenv("PATH") + ":/usr/sbin:/sbin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, exe))) return Path.of(d, exe);
        }
        return null;
    }

    /** Starts the daemons and waits (at most 30 s) until the node is idle. */
    SlurmCluster() throws Exception {
        stepdsBefore = stepds().map(ProcessHandle::pid).collect(Collectors.toSet());
        dir = Files.createTempDirectory("lpf4j-slurm");
        conf = dir.resolve("slurm.conf");
        try {
            start();
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private void start() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path munge = Files.createDirectories(dir.resolve("munge"));
        Files.setPosixFilePermissions(munge, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (String d : List.of("spool", "state")) Files.createDirectories(dir.resolve(d));
        byte[] key = new byte[1024];
        new SecureRandom().nextBytes(key);
        Path keyFile = Files.write(munge.resolve("key"), key);
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
        String host = output(List.of("hostname", "-s")).strip();
        String conf = String.join("\n",
                "ClusterName=lpf4jtest",
                "SlurmctldHost=" + host,
                "SlurmctldPort=" + freePort(),
                "SlurmdPort=" + freePort(),
                "SlurmUser=root",
                "AuthType=auth/munge",
                "AuthInfo=socket=" + munge.resolve("socket"),
                "StateSaveLocation=" + dir.resolve("state"),
                "SlurmdSpoolDir=" + dir.resolve("spool"),
                "SlurmctldPidFile=" + dir.resolve("slurmctld.pid"),
                "SlurmdPidFile=" + dir.resolve("slurmd.pid"),
                "SlurmctldLogFile=" + dir.resolve("slurmctld.log"),
                "SlurmdLogFile=" + dir.resolve("slurmd.log"),
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "EnforcePartLimits=ALL",
                "SlurmdParameters=config_overrides",
                "ReturnToService=2",
                "MpiDefault=none",
                "NodeName=" + host + " NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN",
                "PartitionName=test Nodes=" + host + " Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES", "");
        Files.writeString(this.conf, conf);
        daemon("munged", "-F", "--socket=" + munge.resolve("socket"), "--key-file=" + keyFile, "--pid-file=" + munge.resolve("pid"),
                "--log-file=" + munge.resolve("log"), "--seed-file=" + munge.resolve("seed"), "-f");
        waitFor("munge's socket", () -> Files.exists(munge.resolve("socket")));
        daemon("slurmctld", "-D", "-i", "-f", this.conf.toString());
        daemon("slurmd", "-D", "-f", this.conf.toString());
        waitFor("an idle node in sinfo", () -> output(List.of("sinfo", "-h", "-o", "%T")).strip().equals("idle"));
    }

    /** @return the environment a Slurm client needs to reach this cluster */
    Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_CONF", conf.toString());
        return env;
    }

    /** @return what {@code squeue -h} lists (the jobs still known), after up to 10 s for the ones ending */
    String jobsLeft() throws Exception {
        String jobs = "";
        for (int i = 0; i < 50; i++) {
            jobs = output(List.of("squeue", "-h")).strip();
            if (jobs.isEmpty()) return jobs;
            Thread.sleep(200);
        }
        return jobs;
    }

    /** @return the daemons' logs, for a failure's message */
    String logs() {
        StringBuilder b = new StringBuilder();
        for (String f : List.of("slurmctld.log", "slurmd.log")) {
            try {
                List<String> lines = Files.readAllLines(dir.resolve(f));
                b.append("--- ").append(f).append(" (last 60 lines)\n");
                lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(l -> b.append(l).append('\n'));
            } catch (IOException e) {
                b.append("--- ").append(f).append(": ").append(e).append('\n');
            }
        }
        return b.toString();
    }

    private void daemon(String... command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve(Path.of(command[0]).getFileName() + ".out").toFile());
        pb.environment().putAll(env());
        daemons.add(pb.start());
    }

    private String output(List<String> command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env());
        Process p = pb.start();
        try {
            p.getOutputStream().close();
            if (!p.waitFor(10, TimeUnit.SECONDS)) return "(timed out: " + command + ")";
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            p.destroyForcibly();
        }
    }

    private interface Check {
        boolean ok() throws Exception;
    }

    private void waitFor(String what, Check check) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!check.ok()) {
            for (Process d : daemons) {
                if (!d.isAlive()) throw new IllegalStateException("Slurm test cluster: " + d.info().command().orElse("a daemon")
                        + " ended (status " + d.exitValue() + ") while waiting for " + what + "\n" + logs());
            }
            if (System.nanoTime() > end) throw new IllegalStateException("Slurm test cluster: no " + what + " within 30 s\n" + logs());
            Thread.sleep(100);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private Stream<ProcessHandle> stepds() {
        return ProcessHandle.allProcesses().filter(h -> h.info().command().map(c -> c.endsWith("/slurmstepd")).orElse(false)
                || h.info().commandLine().map(c -> c.startsWith("slurmstepd")).orElse(false));
    }

    /** @return processes of this cluster still alive: its daemons and the step daemons it started */
    List<String> leftovers() {
        List<String> left = new ArrayList<>();
        for (Process d : daemons) if (d.isAlive()) left.add(d.pid() + " " + d.info().commandLine().orElse("?"));
        stepds().filter(h -> !stepdsBefore.contains(h.pid())).forEach(h -> left.add(h.pid() + " " + h.info().commandLine().orElse("?")));
        return left;
    }

    @Override
    public void close() throws Exception {
        try {
            if (!daemons.isEmpty()) {
                output(List.of("scancel", "--full", "--user=root"));
                jobsLeft();
            }
        } finally {
            for (int i = daemons.size() - 1; i >= 0; i--) daemons.get(i).destroy();
            for (Process d : daemons) {
                if (!d.waitFor(10, TimeUnit.SECONDS)) d.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            stepds().filter(h -> !stepdsBefore.contains(h.pid())).forEach(h -> {
                h.descendants().forEach(ProcessHandle::destroyForcibly);
                h.destroyForcibly();
            });
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
