package org.lpf4j.engine.net;

import org.lpf4j.spi.ProcessLauncher;
import org.lpf4j.spi.boot.BootEnvironment;
import org.lpf4j.spi.kit.JobKeys;
import org.lpf4j.superstep.shm.ShmDirectory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The net engine's launcher on one machine: {@code java -cp ... org.lpf4j.engine.net.NetLaunch P
 * <java command line>} starts P JVMs of the command, booted by the {@code tcp} module (rank 0
 * hosts the rendezvous on a free loopback port; a fresh random job key that every connection
 * proves), forwards their output, and exits with the first failing process's status (0 if all
 * succeeded). When one process fails, the others fail at their next sync (they see its connection
 * end) and exit on their own; whoever is left after a grace period is killed. Killed itself
 * (SIGTERM, {@code lpf run} interrupted), it kills every process it started. The job's
 * shared-memory files ({@link LocalPeers}) go in a 0700 directory under {@code /dev/shm} that the
 * launcher makes and removes, with whatever a killed JVM left in it, once its JVMs are gone.
 *
 * <p>{@code NetLaunch --per-jvm K P <command>} ({@code lpf.engine.net.perJvm}) starts ⌈P / K⌉ JVMs
 * instead, each hosting K of the P processes as threads ({@link JvmRanks}): the boot module then
 * numbers the JVMs, {@code LPF_NET_SIZE} still says P, and the JVMs get the parameter through its
 * environment variable.
 *
 * <p>Across hosts there is no launcher: start the same program on each host with the tcp boot's
 * variables ({@code LPF_BOOT_TCP_ADDRESS}, {@code _KEY}, {@code _RANK}, {@code _SIZE}),
 * {@code -Dlpf.engine=net} and {@code -Dlpf.engine.net.bind=<this host's address>} (docs/engines.md, "The
 * net engine").
 */
public final class NetLaunch {
    /** The variable that tells a JVM it is one of P processes of a net job started here (the engine then runs at high priority). */
    static final String SIZE_VARIABLE = "LPF_NET_SIZE";
    /** The variable with a JVM's rank among the P processes of a net job started here (all on this machine). */
    static final String RANK_VARIABLE = "LPF_NET_RANK";
    /** How long the others may take to end after one process failed. */
    private static final long GRACE_MILLIS = 10_000;

    private NetLaunch() {}

    /** The {@link ProcessLauncher} of {@code lpf run --engine net -p N}: this class, in a JVM of its own. */
    static final class Launcher implements ProcessLauncher {
        @Override
        public List<String> command(Launch launch) {
            if (NetParameters.LAUNCH_NODES.get() > 1) {
                throw new IllegalStateException("lpf run --engine net --nodes " + NetParameters.LAUNCH_NODES.get() + ": outside a Slurm"
                        + " allocation lpf run starts every JVM on this machine; across hosts start the program on each host"
                        + " with the tcp boot's variables (docs/engines.md, \"The net engine\")");
            }
            List<String> c = new ArrayList<>();
            c.add(launch.javaCommand());
            c.add("-cp");
            c.add(launch.classPath());
            c.add(NetLaunch.class.getName());
            int perJvm = NetParameters.PER_JVM.get();
            if (perJvm > 1) c.addAll(List.of(PER_JVM_OPTION, Integer.toString(perJvm)));
            c.add(Integer.toString(launch.processes()));
            c.addAll(launch.javaCommandLine());
            return c;
        }
    }

    /** The option before P that makes each JVM host K of the P processes ({@code lpf.engine.net.perJvm}). */
    static final String PER_JVM_OPTION = "--per-jvm";

    /**
     * @param args {@code [--per-jvm K] P}, then the command every JVM runs
     */
    public static void main(String[] args) throws Exception {
        int perJvm = 1, at = 0;
        if (args.length > 1 && args[0].equals(PER_JVM_OPTION) && args[1].matches("\\d{1,4}") && Integer.parseInt(args[1]) >= 1) {
            perJvm = Integer.parseInt(args[1]);
            at = 2;
        }
        if (args.length < at + 2 || !args[at].matches("\\d{1,5}") || Integer.parseInt(args[at]) < 1) {
            System.err.println("usage: NetLaunch [--per-jvm K] P <command...>: starts P processes of the command as one net job on"
                    + " this machine, K of them in each JVM (default 1)");
            System.exit(2);
        }
        int p = Integer.parseInt(args[at]);
        List<String> command = List.of(args).subList(at + 1, args.length);
        System.exit(run(p, perJvm, command));
    }

    /** Starts the job of {@code p} processes, {@code perJvm} in each JVM, and waits for it; @return its exit status */
    static int run(int p, int perJvm, List<String> command) throws IOException, InterruptedException {
        int jvms = (p + perJvm - 1) / perJvm;
        String key = HexFormat.of().formatHex(randomBytes(32));
        int port = freeLoopbackPort();
        List<Process> processes = new ArrayList<>();
        // The job's shared memory lives under a directory of its own, which goes when the job's JVMs are gone, killed or not.
        Path shm = sharedMemoryDirectory();
        Thread killer = new Thread(() -> {
            processes.forEach(NetLaunch::kill);
            processes.forEach(NetLaunch::awaitEnd);
            removeQuietly(shm);
        }, "lpf-net-launch-kill");
        Runtime.getRuntime().addShutdownHook(killer);
        for (int r = 0; r < jvms; r++) {
            ProcessBuilder b = new ProcessBuilder(command).inheritIO();
            Map<String, String> env = b.environment();
            env.put("LPF_BOOT", "tcp");
            env.put(BootEnvironment.TCP_ADDRESS, "127.0.0.1:" + port);
            env.put(BootEnvironment.TCP_KEY, key);
            env.put(BootEnvironment.TCP_RANK, Integer.toString(r));
            env.put(BootEnvironment.TCP_SIZE, Integer.toString(jvms));
            env.put(SIZE_VARIABLE, Integer.toString(p));
            if (perJvm > 1) env.put(NetParameters.PER_JVM.environmentVariable(), Integer.toString(perJvm));
            env.put(RANK_VARIABLE, Integer.toString(r));
            if (shm != null) env.put(LocalPeers.DIR_VARIABLE, shm.toString());
            processes.add(b.start());
        }
        int status = 0, failed = -1;
        long failedAt = 0;
        boolean killed = false;
        while (true) {
            boolean alive = false;
            for (int r = 0; r < jvms; r++) {
                Process proc = processes.get(r);
                if (proc.isAlive()) {
                    alive = true;
                } else if (failed < 0 && proc.exitValue() != 0) {
                    failed = r;
                    status = proc.exitValue();
                    failedAt = System.nanoTime();
                    System.err.println("lpf4j net: " + (perJvm > 1 ? "JVM " : "rank ") + r + " (pid " + proc.pid() + ") exited with status " + status
                            + (status > 128 ? " (signal " + (status - 128) + ")" : "") + "; the others end at their next sync");
                }
            }
            if (!alive) break;
            if (failed >= 0 && !killed && System.nanoTime() - failedAt > GRACE_MILLIS * 1_000_000L) {
                System.err.println("lpf4j net: processes still running " + GRACE_MILLIS / 1000 + " s after rank " + failed
                        + " failed: killed");
                processes.forEach(NetLaunch::kill);
                killed = true; // said and done once; the loop waits for them to be gone
            }
            processes.get(0).waitFor(20, TimeUnit.MILLISECONDS);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook runs anyway
        }
        removeQuietly(shm);
        return status;
    }

    /** Launcher directories are named {@code lpf4j-launch-<launcher's pid>-<32 random hex digits>}. */
    static final String LAUNCH = ShmDirectory.PREFIX + "launch-";

    /**
     * @return a fresh 0700 directory under /dev/shm for the job's shared memory, or null where there
     *         is none; first removes what launchers killed before they could clean up left there
     */
    private static Path sharedMemoryDirectory() {
        Path base = Path.of("/dev/shm");
        if (!Files.isDirectory(base)) return null;
        removeDeadLaunchers(base);
        try {
            Path d = base.resolve(LAUNCH + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(randomBytes(16)));
            ShmDirectory.ensure(d);
            return d;
        } catch (IOException e) {
            System.err.println("lpf4j net: no launcher directory for shared memory (" + e.getMessage() + "): the job uses /dev/shm");
            return null;
        }
    }

    /**
     * Removes the launcher directories under {@code base} whose launcher is no longer running (one
     * killed with {@code kill -9} removes nothing itself), this user's only. A directory whose name
     * carries no pid, or whose pid runs again, stays. Cost: one directory listing.
     */
    static void removeDeadLaunchers(Path base) {
        try (var dirs = Files.newDirectoryStream(base, LAUNCH + "*")) {
            for (Path d : dirs) {
                String rest = d.getFileName().toString().substring(LAUNCH.length());
                int dash = rest.indexOf('-');
                if (dash <= 0) continue;
                long pid;
                try {
                    pid = Long.parseLong(rest.substring(0, dash));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (ProcessHandle.of(pid).isPresent() || ShmDirectory.uid(d) != ShmDirectory.myUid()) continue;
                removeQuietly(d);
            }
        } catch (IOException | RuntimeException e) {
            // Not ours to insist on: a leftover directory costs a name in /dev/shm, not a job.
        }
    }

    private static void removeQuietly(Path dir) {
        if (dir == null) return;
        try {
            ShmDirectory.removeTree(dir);
        } catch (IOException e) {
            System.err.println("lpf4j net: could not remove " + dir + ": " + e.getMessage());
        }
    }

    private static void awaitEnd(Process p) {
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    private static byte[] randomBytes(int n) { return JobKeys.random(n); }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        }
    }
}
