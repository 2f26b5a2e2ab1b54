package org.lpf4j.spark;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The program of docs/spark.md ("Inside Spark"), as written (the block tagged {@code <!-- run: spark -->}, which
 * {@code DocsCodeBlocksTest} leaves to this test): its Java block is compiled apart by javac
 * (no warning allowed) and its {@code main} runs from a class loader of its own (as an
 * application's classes are), printing what its comment says.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReadmeSparkExampleTest {
    @Test
    void theReadmeProgramCompilesAndPrintsWhatItsCommentSays(@TempDir Path work) throws Exception {
        String readme = Files.readString(Path.of("..", "docs", "spark.md"));
        int section = readme.indexOf("## Inside Spark");
        assertTrue(section >= 0, "docs/spark.md has the section 'Inside Spark'");
        Matcher m = Pattern.compile("<!-- run: spark .*?-->\\n```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(m.find(section), "the section has a ```java block tagged <!-- run: spark -->");
        String source = m.group(1);
        assertTrue(source.contains("public class PartitionSums"), source);
        Path file = Files.writeString(Files.createDirectories(work.resolve("src")).resolve("PartitionSums.java"), source);
        Path classes = Files.createDirectories(work.resolve("classes"));
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process javac = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
                "-Xlint:all,-serial,-processing", "-d", classes.toString(), "-cp", cp, file.toString()).redirectErrorStream(true).start();
        try {
            assertTrue(javac.waitFor(120, TimeUnit.SECONDS), "javac did not finish in 120 s");
            String diagnostics = new String(javac.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, javac.exitValue(), diagnostics);
            assertTrue(diagnostics.isBlank(), "the guide's program compiles without a warning: " + diagnostics);
        } finally {
            javac.destroyForcibly();
        }
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
        String expected = source.substring(source.indexOf("// [") + 3, source.indexOf("]", source.indexOf("// [")) + 1);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains(expected), "prints " + expected + ": " + out);
    }
}
