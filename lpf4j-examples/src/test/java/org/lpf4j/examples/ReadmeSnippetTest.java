package org.lpf4j.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.spi.ToolProvider;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README's first Java snippet, as written: compiled (the JDK's javac tool) into a class with a {@code main} and run
 * in a fresh JVM with no {@code lpf.engine.threads.procs} setting (the test JVM's argLine sets
 * one), it must run the 4 processes its comment promises, whatever the number of cores.
 */
@Timeout(120)
class ReadmeSnippetTest {

    @Test
    void theReadmeSnippetRunsFourProcessesAsWritten() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        Matcher m = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(m.find(), "README.md has a ```java block");
        String source = """
                import org.lpf4j.*;
                import java.lang.foreign.*;

                public class ReadmeSnippet {
                    public static void main(String[] argv) {
                %s
                    }
                }
                """.formatted(m.group(1));
        Path dir = Files.createTempDirectory("readme-snippet");
        try {
            Path file = dir.resolve("ReadmeSnippet.java");
            Files.writeString(file, source);
            String cp = String.join(File.pathSeparator, location("org.lpf4j.Lpf"),
                    location("org.lpf4j.engine.threads.ThreadsEngine"));
            int rc = ToolProvider.findFirst("javac").orElseThrow().run(System.out, System.err,
                    "--release", "25", "-cp", cp, "-d", dir.toString(), file.toString());
            assertEquals(0, rc, "the README snippet compiles:\n" + source);
            String java = ProcessHandle.current().info().command().orElse("java");
            ProcessBuilder pb = new ProcessBuilder(java, "-cp", cp + File.pathSeparator + dir, "ReadmeSnippet")
                    .redirectErrorStream(true);
            pb.environment().keySet().removeIf(k -> k.startsWith("LPF_"));
            Process proc = pb.start();
            try {
                if (!proc.waitFor(60, TimeUnit.SECONDS)) fail("the snippet did not finish in 60 s");
                String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, proc.exitValue(), out);
                assertEquals(List.of("nprocs = 4"), out.lines().filter(l -> l.startsWith("nprocs")).toList(), out);
                assertTrue(!out.contains("WARNING"), "no shortfall warning: " + out);
            } finally {
                proc.descendants().forEach(ProcessHandle::destroyForcibly);
                proc.destroyForcibly();
                proc.onExit().get(10, TimeUnit.SECONDS);
            }
            assertTrue(!proc.isAlive(), "the snippet's JVM is gone");
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
