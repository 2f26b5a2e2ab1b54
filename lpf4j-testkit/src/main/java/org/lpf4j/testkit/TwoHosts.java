package org.lpf4j.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two "hosts" on one machine, for the engines' multi-host tests: network namespaces
 * {@code lpf4j-h0} (10.200.0.1/24) and {@code lpf4j-h1} (10.200.0.2/24) joined by a veth pair.
 * {@code mpirun} runs inside h0 with a hostfile of the two addresses and a {@code plm_rsh_agent}
 * script that starts the remote {@code orted} with {@code ip netns exec lpf4j-h1}; MPI (btl
 * {@code tcp,self}) and the runtime (oob) are kept on 10.200.0.0/24, so the ranks of h0 and h1 talk
 * over TCP across the veth pair. {@link #run} checks afterwards that an {@code orted} was started
 * in h1 and that the veth pair carried the job's traffic, and deletes the namespaces (killing
 * anything still in them) in {@code finally}; {@link MpiJob} checks that no JVM or {@code orted}
 * of the job is left.
 *
 * <p>Needs root, {@code ip} (iproute2), a kernel that lets root make namespaces and veth pairs,
 * and Open MPI; without them the calling test is skipped, saying why, or fails under CI
 * ({@link Needs}: a failure to set the hosts up is the environment's; elsewhere only what the job
 * does afterwards can fail the test).
 */
public final class TwoHosts {
    private static final String[] NS = {"lpf4j-h0", "lpf4j-h1"};
    private static final String[] ADDRESS = {"10.200.0.1", "10.200.0.2"};
    private static final String SUBNET = "10.200.0.0/24";

    private TwoHosts() {}

    /**
     * Runs {@code mainClass} on {@code 2 × perHost} ranks, the first {@code perHost} in h0, the
     * others in h1.
     *
     * @param perHost    ranks per host
     * @param jvmOptions options for every rank's JVM
     * @return what happened (the cross-host checks have passed)
     */
    public static MpiJob.Result run(int perHost, List<String> jvmOptions, Duration timeout, Class<?> mainClass,
            String... args) throws Exception {
        Needs.that("root".equals(System.getProperty("user.name")),
                () -> "two-hosts test needs root to create network namespaces; user is " + System.getProperty("user.name"));
        Needs.that(sh(List.of("ip", "-V")).code == 0, "two-hosts test needs iproute2's ip on the PATH");
        Path dir = Files.createTempDirectory("lpf4j-netns");
        try {
            deleteNamespaces();
            Out made = sh(List.of("ip", "netns", "add", NS[0]));
            Needs.that(made.code == 0, () -> "this kernel or container refuses network namespaces: " + made.text);
            Out entered = sh(List.of("ip", "netns", "exec", NS[0], "true"));
            Needs.that(entered.code == 0, () -> "this kernel or container refuses to run in a namespace: " + entered.text);
            try {
                createNamespaces();
            } catch (AssertionError e) {
                // The environment, not the engine: e.g. a kernel without veth. Say so, and skip.
                Needs.missing("the two hosts cannot be set up here: " + e.getMessage());
            }
            Path agent = dir.resolve("agent.sh"), log = dir.resolve("agent.log"), hosts = dir.resolve("hosts");
            Files.writeString(agent, agentScript(log), StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.writeString(hosts, ADDRESS[0] + " slots=" + perHost + "\n" + ADDRESS[1] + " slots=" + perHost + "\n");
            long before = txBytes(1);
            MpiJob.Result r = MpiJob.openMpiAcross(List.of("ip", "netns", "exec", NS[0]), List.of(
                            "--hostfile", hosts.toString(), "--map-by", "slot",
                            "--mca", "plm_rsh_agent", agent.toString(),
                            "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", SUBNET,
                            "--mca", "oob_tcp_if_include", SUBNET))
                    .jvm(jvmOptions.toArray(String[]::new))
                    .run(2 * perHost, timeout, mainClass, args);
            String agentLog = Files.exists(log) ? Files.readString(log) : "";
            assertTrue(agentLog.contains(NS[1]) && agentLog.contains("orted"),
                    () -> "no orted was started in " + NS[1] + " (agent log: '" + agentLog + "')\n" + r.both());
            long carried = txBytes(1) - before;
            assertTrue(carried > 1 << 20, "the veth pair carried only " + carried + " bytes out of " + NS[1]
                    + ": the job did not talk across the namespaces\n" + r.both());
            System.out.println("TwoHosts: " + r.out().lines().filter(l -> l.startsWith("CONFORMANCE")).findFirst().orElse("?")
                    + "; " + NS[1] + " sent " + carried + " bytes over the veth pair");
            return r;
        } finally {
            deleteNamespaces();
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        }
    }

    /** The agent: {@code agent.sh HOST COMMAND...} runs the command line with a shell in HOST's namespace. */
    private static String agentScript(Path log) {
        return "#!/bin/sh\n"
                + "host=$1; shift\n"
                + "case \"$host\" in\n"
                + "  " + ADDRESS[0] + ") ns=" + NS[0] + " ;;\n"
                + "  " + ADDRESS[1] + ") ns=" + NS[1] + " ;;\n"
                + "  *) echo \"agent.sh: unknown host $host\" >&2; exit 1 ;;\n"
                + "esac\n"
                + "echo \"$ns: $*\" >> '" + log + "'\n"
                + "exec ip netns exec \"$ns\" /bin/sh -c \"$*\"\n";
    }

    /** Makes the namespaces (the first exists already) and joins them. */
    private static void createNamespaces() throws Exception {
        run("ip", "netns", "add", NS[1]);
        run("ip", "link", "add", "veth-lpf0", "type", "veth", "peer", "name", "veth-lpf1");
        for (int i = 0; i < 2; i++) {
            run("ip", "link", "set", "veth-lpf" + i, "netns", NS[i]);
            run("ip", "-n", NS[i], "addr", "add", ADDRESS[i] + "/24", "dev", "veth-lpf" + i);
            run("ip", "-n", NS[i], "link", "set", "lo", "up");
            run("ip", "-n", NS[i], "link", "set", "veth-lpf" + i, "up");
        }
    }

    /** Kills whatever still runs in the namespaces, then deletes them (the veth pair goes with them). */
    private static void deleteNamespaces() throws Exception {
        for (String ns : NS) {
            Out pids = sh(List.of("ip", "netns", "pids", ns));
            if (pids.code == 0) {
                for (String pid : pids.text.split("\\s+")) {
                    if (!pid.isBlank()) ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
                }
                sh(List.of("ip", "netns", "del", ns));
            }
        }
        List<String> left = new ArrayList<>();
        for (String ns : NS) if (sh(List.of("ip", "netns", "pids", ns)).code == 0) left.add(ns);
        assertTrue(left.isEmpty(), "network namespaces not deleted: " + left);
    }

    /** @return the bytes sent so far by host i's end of the veth pair */
    private static long txBytes(int i) throws Exception {
        Out o = sh(List.of("ip", "netns", "exec", NS[i], "cat", "/sys/class/net/veth-lpf" + i + "/statistics/tx_bytes"));
        assertEquals(0, o.code, o.text);
        return Long.parseLong(o.text.strip());
    }

    private static void run(String... cmd) throws Exception {
        Out o = sh(List.of(cmd));
        assertEquals(0, o.code, () -> String.join(" ", cmd) + " failed: " + o.text);
    }

    private record Out(int code, String text) {}

    private static Out sh(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) return new Out(-1, String.join(" ", cmd) + ": timed out");
            return new Out(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            p.destroyForcibly();
        }
    }
}
