package org.lpf4j.boot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Starts the processes of a test job as separate JVMs (or under mpirun) with the test class path,
 * waits for them with a bounded timeout, and kills every process tree it started in
 * {@link #close()}, failing if any survives; then removes the outputs and their directory.
 */
final class Jvms implements AutoCloseable {
    private final List<Process> processes = new ArrayList<>();
    private final List<Path> outputs = new ArrayList<>();
    private final Path dir;

    Jvms() throws IOException { dir = Files.createTempDirectory("lpf-boot-test"); }

    /** @return the command that starts a JVM running {@code main} with the test class path */
    static List<String> java(Class<?> main, String... args) {
        List<String> c = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "--enable-native-access=ALL-UNNAMED", "-Xss1m", "-Xmx512m",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", main.getName()));
        c.addAll(List.of(args));
        return c;
    }

    /**
     * @param command the command
     * @param env     extra environment variables
     * @return the started process (output in a file, see {@link #output})
     */
    Process start(List<String> command, Map<String, String> env) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("PMIX_") || k.startsWith("OMPI_") || k.startsWith("LPF_"));
        pb.environment().putAll(env);
        Path out = dir.resolve("p" + processes.size() + ".out");
        pb.redirectErrorStream(true).redirectOutput(out.toFile());
        Process p = pb.start();
        processes.add(p);
        outputs.add(out);
        return p;
    }

    /** @return the output so far of the i-th started process */
    String output(int i) {
        try {
            return Files.readString(outputs.get(i));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    /** @return every process's output, labelled */
    String outputs() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < processes.size(); i++) b.append("---- process ").append(i).append(":\n").append(output(i));
        return b.toString();
    }

    /** Waits for every process until the deadline; fails naming the ones still running. */
    void awaitAll(long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (int i = 0; i < processes.size(); i++) {
            long left = deadline - System.nanoTime();
            if (!processes.get(i).waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                fail("process " + i + " still running after " + timeoutMillis + " ms\n" + outputs());
            }
        }
    }

    /** Waits until process i printed {@code text}, bounded. */
    void awaitOutput(int i, String text, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (!output(i).contains(text)) {
            if (System.currentTimeMillis() > deadline) fail("process " + i + " did not print '" + text + "'\n" + outputs());
            Thread.sleep(20);
        }
    }

    Process process(int i) { return processes.get(i); }

    int size() { return processes.size(); }

    /** Kills every started process and its descendants; fails if one is still alive 10 s later. */
    @Override
    public void close() throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>();
        for (Process p : processes) {
            p.descendants().forEach(all::add);
            all.add(p.toHandle());
        }
        all.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.currentTimeMillis() + 10_000;
        for (ProcessHandle h : all) {
            while (h.isAlive() && System.currentTimeMillis() < deadline) Thread.sleep(10);
            if (h.isAlive()) fail("process " + h.pid() + " (" + h.info().command().orElse("?") + ") survived the kill");
        }
        for (Path out : outputs) {
            try {
                Files.deleteIfExists(out);
            } catch (IOException e) {
                // left in the temporary directory
            }
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // not empty (a process wrote a file of its own): left in the temporary directory
        }
    }
}
