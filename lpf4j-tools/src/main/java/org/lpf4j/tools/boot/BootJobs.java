package org.lpf4j.tools.boot;

import org.lpf4j.boot.tcp.TcpCoordinator;
import org.lpf4j.spi.boot.BootEnvironment;
import org.lpf4j.spi.kit.JobKeys;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@code lpf boot-test} jobs on this machine: N JVMs through the {@code tcp} module (a
 * coordinator in this JVM on loopback, a random job key passed in the environment), or through
 * {@code mpirun} and the {@code pmix} module. Each job is bounded by a timeout; every process tree
 * it started is killed when it ends.
 */
public final class BootJobs {
    private BootJobs() {}

    /**
     * One finished job.
     *
     * @param result rank 0's result, or {@code null} if the job failed
     * @param output what the processes printed (for the failure message)
     */
    public record Outcome(BootCheck.Result result, String output) {}

    /** @return the command line of a JVM like this one running {@code lpf boot-test --worker} */
    static List<String> worker(String module, int warmup, int rounds, int valueSize) {
        List<String> c = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "--enable-native-access=ALL-UNNAMED", "-Xss1m",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "org.lpf4j.tools.LpfCommand", "boot-test", "--worker",
                "--module", module, "--warmup", Integer.toString(warmup), "--repeats", Integer.toString(rounds),
                "--value-size", Integer.toString(valueSize)));
        return c;
    }

    /**
     * @return the path of {@code mpirun}, or {@code null}
     */
    public static String mpirun() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "mpirun");
            if (Files.isExecutable(p)) return p.toString();
        }
        return null;
    }

    /**
     * Runs a job of p JVMs through {@code tcp}.
     */
    public static Outcome tcp(int p, int warmup, int rounds, int valueSize, long timeoutMillis) throws IOException, InterruptedException {
        byte[] raw = JobKeys.random(32);
        String key = HexFormat.of().formatHex(raw);
        try (TcpCoordinator c = new TcpCoordinator(new InetSocketAddress("127.0.0.1", 0), p, key.getBytes(StandardCharsets.UTF_8),
                64 << 20, System.getLogger("org.lpf4j.boot.tcp"))) {
            List<ProcessBuilder> builders = new ArrayList<>();
            for (int r = 0; r < p; r++) {
                ProcessBuilder pb = new ProcessBuilder(worker("tcp", warmup, rounds, valueSize));
                Map<String, String> env = pb.environment();
                env.keySet().removeIf(k -> k.startsWith("PMIX_") || k.startsWith("OMPI_"));
                env.put(BootEnvironment.TCP_ADDRESS, "127.0.0.1:" + c.address().getPort());
                env.put(BootEnvironment.TCP_KEY, key);
                env.put(BootEnvironment.TCP_RANK, Integer.toString(r));
                env.put(BootEnvironment.TCP_SIZE, Integer.toString(p));
                env.put(BootEnvironment.TCP_SERVE, "false");
                builders.add(pb);
            }
            return run(builders, timeoutMillis);
        }
    }

    /**
     * Runs a job of p JVMs under {@code mpirun} through {@code pmix}.
     */
    public static Outcome pmix(String mpirun, int p, int warmup, int rounds, int valueSize, long timeoutMillis)
            throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of(mpirun));
        if ("root".equals(System.getProperty("user.name"))) c.add("--allow-run-as-root");
        c.addAll(List.of("--oversubscribe", "-n", Integer.toString(p)));
        c.addAll(worker("pmix", warmup, rounds, valueSize));
        ProcessBuilder pb = new ProcessBuilder(c);
        pb.environment().keySet().removeIf(k -> k.startsWith("PMIX_") || k.startsWith("OMPI_") || k.startsWith("LPF_BOOT"));
        return run(List.of(pb), timeoutMillis);
    }

    private static Outcome run(List<ProcessBuilder> builders, long timeoutMillis) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("lpf-boot-test");
        List<Process> started = new ArrayList<>();
        List<Path> outs = new ArrayList<>();
        try {
            for (ProcessBuilder pb : builders) {
                Path out = dir.resolve("p" + outs.size() + ".out");
                pb.redirectErrorStream(true).redirectOutput(out.toFile());
                outs.add(out);
                started.add(pb.start());
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            boolean ok = true;
            for (Process pr : started) {
                if (!pr.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    ok = false;
                    break;
                }
                ok &= pr.exitValue() == 0;
            }
            StringBuilder output = new StringBuilder();
            BootCheck.Result result = null;
            for (int i = 0; i < outs.size(); i++) {
                String text = Files.readString(outs.get(i));
                for (String line : text.lines().toList()) {
                    BootCheck.Result r = BootCheck.Result.parse(line);
                    if (r != null) result = r;
                }
                output.append(builders.size() > 1 ? "---- process " + i + ":\n" : "").append(text);
            }
            if (!ok) output.append("(job failed or exceeded ").append(timeoutMillis).append(" ms)\n");
            return new Outcome(ok ? result : null, output.toString());
        } finally {
            for (Process pr : started) {
                pr.descendants().forEach(ProcessHandle::destroyForcibly);
                pr.destroyForcibly();
            }
            for (Process pr : started) pr.waitFor(10, TimeUnit.SECONDS);
            for (Path out : outs) Files.deleteIfExists(out);
            Files.deleteIfExists(dir);
        }
    }
}
