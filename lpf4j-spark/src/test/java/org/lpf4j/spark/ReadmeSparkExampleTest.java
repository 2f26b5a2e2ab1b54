package org.lpf4j.spark;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guide docs/spark.md, "Inside Spark", as written (its Java block is tagged {@code <!-- run: spark -->}, which
 * {@code DocsCodeBlocksTest} leaves to this test): the program is compiled apart by javac
 * (no warning allowed) and its {@code main} runs from a class loader of its own (as an
 * application's classes are), printing what its comment says; the driver's JVM options it lists
 * are Spark's own and the ones these tests run with. (Its {@code SparkSubmit} command runs in
 * {@link SparkSubmitTest}.)
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReadmeSparkExampleTest {
    /** @return the guide's section "Inside Spark" */
    static String section() throws IOException {
        String readme = Files.readString(Path.of("..", "docs", "spark.md"));
        int start = readme.indexOf("## Inside Spark");
        assertTrue(start >= 0, "docs/spark.md has the section 'Inside Spark'");
        int end = readme.indexOf("\n## ", start + 3);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    /** @return the section's program (its first ```java block) */
    static String program() throws IOException {
        Matcher m = Pattern.compile("<!-- run: spark .*?-->\\n```java\\n(.*?)```", Pattern.DOTALL).matcher(section());
        assertTrue(m.find(), "the section has a ```java block tagged <!-- run: spark -->");
        String source = m.group(1);
        assertTrue(source.contains("public class PartitionSums"), source);
        return source;
    }

    /** @return what the program's comment says it prints */
    static String expectedOutput(String source) {
        return source.substring(source.indexOf("// [") + 3, source.indexOf("]", source.indexOf("// [")) + 1);
    }

    /** @return the driver's JVM options the section lists (SPARK_JVM_OPTIONS="…") */
    static List<String> jvmOptions() throws IOException {
        Matcher m = Pattern.compile("SPARK_JVM_OPTIONS=\"([^\"]*)\"").matcher(section());
        assertTrue(m.find(), "the section sets SPARK_JVM_OPTIONS");
        return words(m.group(1));
    }

    static List<String> words(String text) { return Arrays.asList(text.strip().split("\\s+")); }

    /** The options of Spark's list that make JDK 25 print a WARNING line at every start. */
    static final List<String> WARN_ON_JDK_25 = List.of("--add-modules=jdk.incubator.vector",
            "--add-opens=java.base/sun.security.action=ALL-UNNAMED");

    /** A JVM started with the README's options prints no warning; with each option left out, it prints one. */
    @Test
    void theDriverOptionsListedMakeTheJvmPrintNoWarning() throws Exception {
        assertEquals("", warnings(jvmOptions()), "the README's options");
        for (String option : WARN_ON_JDK_25) {
            List<String> with = new java.util.ArrayList<>(jvmOptions());
            with.add(option);
            assertTrue(warnings(with).contains("WARNING"), "JDK " + Runtime.version().feature() + " warns about " + option);
        }
    }

    /** @return the WARNING lines of {@code java OPTIONS -version} on this JDK */
    private static String warnings(List<String> options) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(options);
        command.add("-version");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "java -version ended");
            return out.lines().filter(l -> l.contains("WARNING")).collect(java.util.stream.Collectors.joining("\n"));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void theDriverOptionsListedAreSparksOwnAndTheTestsOnes() throws IOException {
        List<String> readme = jvmOptions();
        List<String> spark = new java.util.ArrayList<>(words(org.apache.spark.launcher.JavaModuleOptions.defaultModuleOptions()));
        assertTrue(spark.removeAll(WARN_ON_JDK_25), "Spark's list has " + WARN_ON_JDK_25 + ": " + spark);
        assertEquals(spark, readme, "the README lists what Spark's launcher gives its JVMs, but the options JDK 25 warns about");
        assertEquals(words(System.getProperty("lpf4j.spark.jvmOptions")), readme, "the tests run with the README's options");
        List<String> mine = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (String option : readme) assertTrue(mine.contains(option), "this JVM runs with " + option + ": " + mine);
    }

    @Test
    void theReadmeProgramCompilesAndPrintsWhatItsCommentSays(@TempDir Path work) throws Exception {
        String source = program();
        Path file = Files.writeString(Files.createDirectories(work.resolve("src")).resolve("PartitionSums.java"), source);
        Path classes = Files.createDirectories(work.resolve("classes"));
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        javac(cp, classes, file);
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            Thread.currentThread().setContextClassLoader(loader);
            loader.loadClass("PartitionSums").getMethod("main", String[].class).invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(saved);
            Thread.currentThread().setContextClassLoader(getClass().getClassLoader());
        }
        String expected = expectedOutput(source);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains(expected), "prints " + expected + ": " + out);
    }

    /** Compiles {@code file} into {@code classes} against {@code cp}; fails on an error or a warning. */
    static void javac(String cp, Path classes, Path file) throws Exception {
        Process javac = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
                "-Xlint:all,-serial,-processing", "-d", classes.toString(), "-cp", cp, file.toString()).redirectErrorStream(true).start();
        try {
            assertTrue(javac.waitFor(120, TimeUnit.SECONDS), "javac did not finish in 120 s");
            String diagnostics = new String(javac.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, javac.exitValue(), diagnostics);
            assertTrue(diagnostics.isBlank(), "the README's program compiles without a warning: " + diagnostics);
        } finally {
            javac.destroyForcibly();
        }
    }
}
