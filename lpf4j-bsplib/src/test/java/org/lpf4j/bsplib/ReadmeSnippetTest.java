package org.lpf4j.bsplib;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README's BSPlib snippet, as written: compiled with the JDK's javac into a class with a
 * {@code main}, run in a fresh JVM, it prints what its comment says.
 */
@Timeout(120)
class ReadmeSnippetTest {

    @Test
    void theBsplibSnippetCompilesAndPrintsWhatItSays() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        Matcher m = Pattern.compile("## BSPlib\\n.*?```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(m.find(), "README.md has a BSPlib section with a ```java block");
        String snippet = m.group(1);
        Matcher says = Pattern.compile("// prints: (.*)").matcher(snippet);
        assertTrue(says.find(), "the snippet says what it prints");
        String source = """
                import org.lpf4j.bsplib.*;
                import java.lang.foreign.*;
                import java.util.Arrays;

                public class BsplibSnippet {
                    public static void main(String[] argv) {
                %s
                    }
                }
                """.formatted(snippet);
        Path dir = Files.createTempDirectory("bsplib-snippet");
        try {
            Path file = dir.resolve("BsplibSnippet.java");
            Files.writeString(file, source);
            String cp = String.join(File.pathSeparator, location("org.lpf4j.bsplib.Bsplib"), location("org.lpf4j.Lpf"),
                    location("org.lpf4j.engine.threads.ThreadsEngine"));
            int rc = ToolProvider.findFirst("javac").orElseThrow().run(System.out, System.err,
                    "--release", "25", "-cp", cp, "-d", dir.toString(), file.toString());
            assertEquals(0, rc, "the README snippet compiles:\n" + source);
            String java = ProcessHandle.current().info().command().orElse("java");
            ProcessBuilder pb = new ProcessBuilder(java, "-cp", cp + File.pathSeparator + dir, "BsplibSnippet")
                    .redirectErrorStream(true);
            pb.environment().keySet().removeIf(k -> k.startsWith("LPF_"));
            Process proc = pb.start();
            if (!proc.waitFor(60, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                fail("the snippet did not finish in 60 s");
            }
            String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, proc.exitValue(), out);
            assertTrue(out.contains(says.group(1).strip()), "expected '" + says.group(1).strip() + "' in:\n" + out);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static String location(String className) throws ClassNotFoundException, URISyntaxException {
        return Path.of(Class.forName(className).getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
