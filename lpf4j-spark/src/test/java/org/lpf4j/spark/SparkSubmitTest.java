package org.lpf4j.spark;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * lpf4j shipped the way Spark users deploy: the one runtime jar ({@code lpf4j-spark-<v>-runtime.jar})
 * holds what a stage needs, with the modules' service files merged; and the README's
 * {@code SparkSubmit} command, as written, runs the README's program against a
 * {@code local-cluster} (a master, two workers, two executor JVMs) of the Spark home assembled from
 * Maven, with nothing of lpf4j on any class path but that jar.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class SparkSubmitTest {
    static Path runtimeJar() {
        Path jar = Path.of(System.getProperty("lpf4j.spark.runtimeJar", "missing"));
        assertTrue(Files.isRegularFile(jar), "the runtime jar is built before the tests: " + jar);
        return jar;
    }

    @Test
    void theRuntimeJarHoldsEveryModuleAStageNeedsWithTheirServicesMerged() throws IOException {
        try (JarFile jar = new JarFile(runtimeJar().toFile())) {
            for (String c : List.of("org/lpf4j/spark/BspStage.class", "org/lpf4j/Context.class", "org/lpf4j/superstep/SuperstepContext.class",
                    "org/lpf4j/engine/net/HostedSection.class", "org/lpf4j/engine/threads/ThreadsEngineProvider.class",
                    "org/lpf4j/engine/hybrid/HostedNode.class",
                    "org/lpf4j/coll/Collectives.class", "org/lpf4j/bsmp/Bsmp.class", "org/lpf4j/cr/Checkpoints.class",
                    "org/lpf4j/examples/Rmat.class")) {
                assertTrue(jar.getJarEntry(c) != null, "the runtime jar holds " + c);
            }
            assertFalse(jar.stream().anyMatch(e -> e.getName().startsWith("org/apache/spark/") || e.getName().startsWith("scala/")),
                    "Spark is provided, not in the jar");
            assertFalse(jar.stream().anyMatch(e -> e.getName().endsWith("module-info.class")), "no module descriptor on a class path");
            // The hybrid engine's provider comes with HostedNode (executor nodes); without the MPI engine it declines.
            assertEquals(Set.of("org.lpf4j.engine.net.NetEngineProvider", "org.lpf4j.engine.threads.ThreadsEngineProvider",
                            "org.lpf4j.engine.hybrid.HybridEngineProvider"),
                    services(jar, "org.lpf4j.spi.EngineProvider"), "the engines' providers");
            // Each service file of each module is in the merged one.
            for (String anchor : List.of("org.lpf4j.Context", "org.lpf4j.cr.Checkpoints", "org.lpf4j.engine.net.HostedSection",
                    "org.lpf4j.engine.threads.ThreadsEngineProvider", "org.lpf4j.engine.hybrid.HostedNode")) {
                Path module = location(anchor);
                Path services = module.resolve("META-INF/services");
                if (!Files.isDirectory(services)) continue;
                try (Stream<Path> files = Files.list(services)) {
                    for (Path f : files.toList()) {
                        Set<String> own = new TreeSet<>(lines(Files.readString(f)));
                        Set<String> merged = services(jar, f.getFileName().toString());
                        assertTrue(merged.containsAll(own), f + ": " + own + " in the runtime jar's " + merged);
                    }
                }
            }
        }
    }

    private static Path location(String className) {
        try {
            return Path.of(Class.forName(className).getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (ReflectiveOperationException | java.net.URISyntaxException e) {
            throw new IllegalStateException(className, e);
        }
    }

    private static Set<String> services(JarFile jar, String service) throws IOException {
        JarEntry e = jar.getJarEntry("META-INF/services/" + service);
        if (e == null) return Set.of();
        return new TreeSet<>(lines(new String(jar.getInputStream(e).readAllBytes(), StandardCharsets.UTF_8)));
    }

    private static List<String> lines(String text) {
        List<String> out = new ArrayList<>();
        for (String l : text.split("\n")) {
            String s = l.replaceAll("#.*", "").strip();
            if (!s.isEmpty()) out.add(s);
        }
        return out;
    }

    @Test
    void theReadmesSparkSubmitCommandRunsTheProgramOnALocalCluster(@TempDir Path work) throws Exception {
        Path lpf = runtimeJar();
        String sparkHome = System.getenv("SPARK_HOME");
        assertTrue(sparkHome != null && Files.isDirectory(Path.of(sparkHome, "jars")), "SPARK_HOME with Spark's jars: " + sparkHome);
        String source = ReadmeSparkExampleTest.program();
        Path file = Files.writeString(Files.createDirectories(work.resolve("src")).resolve("PartitionSums.java"), source);
        Path classes = Files.createDirectories(work.resolve("classes"));
        // As the README compiles it: against the runtime jar and Spark's jars only.
        ReadmeSparkExampleTest.javac(lpf + java.io.File.pathSeparator + sparkHome + "/jars/*", classes, file);
        Path app = work.resolve("partition-sums.jar");
        LocalClusterTest.jarUp(classes, app);

        List<String> command = new ArrayList<>();
        for (String word : readmeCommand()) {
            switch (word) {
                case "java" -> command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                case "$SPARK_JVM_OPTIONS" -> command.addAll(ReadmeSparkExampleTest.jvmOptions());
                case "--jars" -> {
                    // On a crowded machine the executor JVMs may take minutes to register (the
                    // README's 40 looks, 1 s apart, can run out first): this test waits longer.
                    command.addAll(List.of("--conf", "spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures=400", word));
                }
                case "$LPF" -> command.add(lpf.toString());
                case "partition-sums.jar" -> command.add(app.toString());
                default -> command.add(word.replace("$SPARK_HOME", sparkHome));
            }
        }
        assertTrue(command.contains("org.apache.spark.deploy.SparkSubmit") && command.contains("--jars"), command.toString());
        Path log = work.resolve("spark-submit.log");
        ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("SPARK_SCALA_VERSION", "2.13");
        pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        Process submit = pb.start();
        try {
            assertTrue(submit.waitFor(540, TimeUnit.SECONDS), "SparkSubmit did not end in 540 s: " + tail(log));
            String out = Files.readString(log);
            assertEquals(0, submit.exitValue(), "SparkSubmit's exit status: " + tail(log));
            String expected = ReadmeSparkExampleTest.expectedOutput(source);
            assertTrue(out.contains(expected), "prints " + expected + ": " + tail(log));
        } finally {
            submit.descendants().forEach(ProcessHandle::destroyForcibly);
            submit.destroyForcibly();
        }
    }

    /** The README's {@code java … SparkSubmit …} command, as words (line continuations joined, quotes gone). */
    private static List<String> readmeCommand() throws IOException {
        Matcher m = Pattern.compile("\\njava \\$SPARK_JVM_OPTIONS (.*?)#", Pattern.DOTALL).matcher(ReadmeSparkExampleTest.section());
        assertTrue(m.find(), "the section has the SparkSubmit command");
        List<String> words = new ArrayList<>(List.of("java", "$SPARK_JVM_OPTIONS"));
        for (String w : m.group(1).replace("\\\n", " ").strip().split("\\s+")) words.add(w.replace("\"", ""));
        return Collections.unmodifiableList(words);
    }

    private static String tail(Path log) throws IOException {
        String s = Files.exists(log) ? Files.readString(log) : "";
        return s.length() > 6000 ? "…" + s.substring(s.length() - 6000) : s;
    }
}
