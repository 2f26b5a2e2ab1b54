package org.lpf4j.engine.mpi;

import org.lpf4j.testkit.MpiJob;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code hook} over a boot session: N separate JVMs that no MPI launcher started, joined by the tcp
 * boot module (loopback, a fresh job key), run a ring of puts through
 * {@link MpiEngine#init(org.lpf4j.spi.boot.BootSession)} ({@link BootHookMain}). Bounded; every
 * process tree is killed in {@code finally} and nothing of the job may be left.
 */
class BootHookTest {
    private static final long TIMEOUT_MS = 90_000;

    /** What a job's processes did: exit codes, labelled output, wall time. */
    interface Check {
        void check(int[] exits, String outputs, long millis);
    }

    /** Every rank ran the ring and exited 0. */
    static Check ringPassed(int n, String abi) {
        return (exits, all, ms) -> {
            for (int r = 0; r < n; r++) {
                assertEquals(0, exits[r], all);
                assertTrue(all.contains("BOOTHOOK OK " + r + " " + (1000 + (r + n - 1) % n) + " " + abi), all);
            }
            System.out.println("BootHookTest " + abi + " p=" + n + ": ring through hook over tcp boot in " + ms + " ms");
        };
    }

    /** Every rank failed (none hung), the output names {@code why}, within 30 s. */
    static Check failedFast(String why) {
        return (exits, all, ms) -> {
            for (int r = 0; r < exits.length; r++) assertTrue(exits[r] != 0, () -> "a rank succeeded: " + all);
            assertTrue(all.contains(why), all);
            assertTrue(ms < 30_000, () -> "took " + ms + " ms: " + all);
        };
    }

    /**
     * Debian's MPICH 4.0.2 is built with the ch4:ucx netmod only, which has no {@code MPI_Open_port}
     * ("not supported with ucx netmod"): then the join must fail at once on every rank, naming the
     * call. An MPICH with port support (ch4:ofi, ch3) must run the ring.
     */
    @Test
    void mpichSingletonsJoinOverTcpBootOrFailNamingTheCall() throws Exception {
        org.lpf4j.testkit.Needs.that(MpiEngine.libraryInstalled("libmpich.so.12"), "MPICH not installed");
        run(3, "libmpich.so.12", java.util.Map.of(), (exits, all, ms) -> {
            if (all.contains("not supported with ucx netmod")) failedFast("MPI_Open_port failed").check(exits, all, ms);
            else ringPassed(3, "MPICH").check(exits, all, ms);
        });
    }

    /** One JVM: nothing to join, so no port is opened, and even Debian's MPICH runs the section. */
    @Test
    void aSingleProcessNeedsNoPort() throws Exception {
        org.lpf4j.testkit.Needs.that(MpiEngine.libraryInstalled("libmpich.so.12"), "MPICH not installed");
        run(1, "libmpich.so.12", java.util.Map.of(), ringPassed(1, "MPICH"));
    }

    /**
     * Open MPI 4.1 singletons without an {@code ompi-server}: {@code MPI_Comm_connect} fails, and the
     * acceptor, blocked in {@code MPI_Comm_accept}, must still end (the boot fence fails) instead of hanging.
     */
    @Test
    void openMpiWithoutOmpiServerFailsOnEveryRank() throws Exception {
        org.lpf4j.testkit.Needs.that(MpiEngine.libraryInstalled("libmpi.so.40"), "Open MPI not installed");
        run(2, "libmpi.so.40", java.util.Map.of("OMPI_MCA_oob_tcp_if_include", "lo", "OMPI_MCA_btl_tcp_if_include", "lo",
                "OMPI_ALLOW_RUN_AS_ROOT", "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"), (exits, all, ms) -> {
                    failedFast("MPI_Comm_connect").check(exits, all, ms);
                    // every rank (the connecting one and the acceptor) tells the user what to run
                    String[] ranks = all.split("---- rank ");
                    assertEquals(exits.length + 1, ranks.length, all);
                    for (int r = 1; r < ranks.length; r++) assertTrue(ranks[r].contains("ompi-server --no-daemonize -r "), all);
                    assertTrue(all.contains("OMPI_MCA_pmix_server_uri=file:"), all);
                });
    }

    /** The hint is for Open MPI without a configured server only. */
    @Test
    void theOmpiServerHintAppliesOnlyWhereItHelps() {
        String hint = BootJoin.ompiServerHint("Open MPI", null);
        assertTrue(hint != null && hint.contains("ompi-server --no-daemonize -r ") && hint.contains("OMPI_MCA_pmix_server_uri=file:"),
                String.valueOf(hint));
        assertEquals(null, BootJoin.ompiServerHint("Open MPI", "file:/tmp/x"));
        assertEquals(null, BootJoin.ompiServerHint("MPICH", null));
    }

    /**
     * Open MPI 4.1 singletons can connect only through an {@code ompi-server} (without one,
     * {@code MPI_Comm_connect} fails: "requires the support of the ompi-server tool"); the test
     * starts one on loopback and points every JVM at it ({@code OMPI_MCA_pmix_server_uri}).
     */
    @Test
    void openMpiSingletonsJoinOverTcpBootThroughOmpiServer() throws Exception {
        org.lpf4j.testkit.Needs.that(MpiEngine.libraryInstalled("libmpi.so.40"), "Open MPI not installed");
        Path dir = Files.createTempDirectory("lpf-ompi-server");
        Path uri = dir.resolve("uri");
        ProcessBuilder pb = new ProcessBuilder("ompi-server", "--no-daemonize", "-r", uri.toString());
        pb.environment().put("OMPI_MCA_oob_tcp_if_include", "lo");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        pb.redirectErrorStream(true).redirectOutput(dir.resolve("server.out").toFile());
        Process server;
        try {
            server = pb.start();
        } catch (IOException e) {
            org.lpf4j.testkit.Needs.missing("ompi-server not installed: " + e);
            return;
        }
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!(Files.exists(uri) && Files.size(uri) > 0) && server.isAlive() && System.nanoTime() < deadline) Thread.sleep(50);
            assertTrue(Files.exists(uri), () -> "ompi-server wrote no URI: " + read(dir.resolve("server.out")));
            run(3, "libmpi.so.40", java.util.Map.of("OMPI_MCA_pmix_server_uri", "file:" + uri,
                    "OMPI_MCA_oob_tcp_if_include", "lo", "OMPI_MCA_btl_tcp_if_include", "lo",
                    "OMPI_ALLOW_RUN_AS_ROOT", "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"), ringPassed(3, "Open MPI"));
        } finally {
            List<ProcessHandle> tree = new ArrayList<>(server.descendants().toList());
            tree.add(server.toHandle());
            tree.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle h : tree) h.onExit().completeOnTimeout(h, 5, TimeUnit.SECONDS).join();
            MpiJob.deleteTree(dir);
            assertTrue(tree.stream().noneMatch(ProcessHandle::isAlive), "ompi-server survived the kill");
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return "(" + e + ")";
        }
    }

    static void run(int n, String library, java.util.Map<String, String> env, Check check) throws Exception {
        String marker = UUID.randomUUID().toString(), key = newKey();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path dir = Files.createTempDirectory("lpf-boothook");
        List<Process> procs = new ArrayList<>();
        List<ProcessHandle> seen = new ArrayList<>();
        try {
            for (int r = 0; r < n; r++) {
                List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", MpiJob.testClassPath(), "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1", "-Dlpf.test.job=" + marker, "-Dlpf.engine.mpi.library=" + library,
                        BootHookMain.class.getName());
                ProcessBuilder pb = new ProcessBuilder(cmd);
                pb.environment().keySet().removeIf(k -> k.startsWith("PMIX_") || k.startsWith("OMPI_") || k.startsWith("PMI_")
                        || k.startsWith("LPF_") || k.startsWith("SLURM_"));
                pb.environment().put("LPF_BOOT", "tcp");
                pb.environment().put("LPF_BOOT_TCP_ADDRESS", "127.0.0.1:" + port);
                pb.environment().put("LPF_BOOT_TCP_KEY", key);
                pb.environment().put("LPF_BOOT_TCP_RANK", Integer.toString(r));
                pb.environment().put("LPF_BOOT_TCP_SIZE", Integer.toString(n));
                pb.environment().put("LPF_BOOT_TCP_SERVE", "true");
                pb.environment().put("UCX_ERROR_SIGNALS", "");
                pb.environment().putAll(env);
                pb.environment().put("LPF_TEST_JOB", marker); // inherited by whatever MPI starts (singleton orted)
                pb.redirectErrorStream(true).redirectOutput(dir.resolve("p" + r + ".out").toFile());
                procs.add(pb.start());
            }
            long t0 = System.nanoTime(), deadline = t0 + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
            for (int r = 0; r < n; r++) {
                Process p = procs.get(r);
                while (p.isAlive() && System.nanoTime() < deadline) {
                    p.descendants().forEach(seen::add);
                    p.waitFor(100, TimeUnit.MILLISECONDS);
                }
                if (p.isAlive()) fail("rank " + r + " still running after " + TIMEOUT_MS + " ms\n" + outputs(dir, n));
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            int[] exits = procs.stream().mapToInt(Process::exitValue).toArray();
            check.check(exits, outputs(dir, n), ms);
        } finally {
            for (Process p : procs) {
                p.descendants().forEach(seen::add);
                seen.add(p.toHandle());
            }
            seen.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle h : seen) h.onExit().completeOnTimeout(h, 5, TimeUnit.SECONDS).join();
            ProcessHandle.allProcesses().filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false))
                    .forEach(ProcessHandle::destroyForcibly);
            MpiJob.deleteTree(dir); // the ranks' output went into the messages above
        }
        // Also what left the process tree (a daemonised orted): found by the marker in its environment.
        // A daemon of the job gets 5 s to notice its JVM is gone and exit by itself.
        List<ProcessHandle> strays = List.of();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); System.nanoTime() < end; Thread.sleep(100)) {
            strays = ProcessHandle.allProcesses().filter(h -> environmentHas(h, marker)).toList();
            if (strays.isEmpty()) break;
        }
        strays.forEach(ProcessHandle::destroyForcibly);
        seen.addAll(strays);
        for (ProcessHandle h : strays) h.onExit().completeOnTimeout(h, 5, TimeUnit.SECONDS).join();
        List<String> left = strays.stream().map(h -> h.pid() + " " + h.info().commandLine().orElse("?") + " (left the job's tree)")
                .collect(java.util.stream.Collectors.toCollection(ArrayList::new));
        seen.stream().filter(ProcessHandle::isAlive).map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).forEach(left::add);
        assertTrue(left.isEmpty(), () -> "processes left behind: " + left);
    }

    private static boolean environmentHas(ProcessHandle h, String marker) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "environ")),
                    java.nio.charset.StandardCharsets.ISO_8859_1).contains("LPF_TEST_JOB=" + marker);
        } catch (IOException | RuntimeException e) {
            return false; // gone, or not ours to read
        }
    }

    private static String outputs(Path dir, int n) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int r = 0; r < n; r++) b.append("---- rank ").append(r).append(":\n").append(Files.readString(dir.resolve("p" + r + ".out")));
        return b.toString();
    }

    private static String newKey() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return HexFormat.of().formatHex(k);
    }
}
