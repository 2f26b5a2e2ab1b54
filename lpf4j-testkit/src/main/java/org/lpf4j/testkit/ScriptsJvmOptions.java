package org.lpf4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The options {@code bin/jdk25.sh} gives every JVM of the project's scripts ({@code LPF_JVM_OPTIONS}),
 * read from the script, so that the JVMs the tests start run as {@code lpf run}'s do. Tests run
 * from a module's directory, so the script is {@code ../bin/jdk25.sh}. Cost: one small file read.
 */
public final class ScriptsJvmOptions {
    private ScriptsJvmOptions() {}

    /**
     * @return the script's {@code LPF_JVM_OPTIONS}, one option an element
     * @throws AssertionError if the script sets none
     */
    public static List<String> get() {
        Path script = Path.of("..", "bin", "jdk25.sh");
        try {
            for (String line : Files.readAllLines(script)) {
                if (line.startsWith("LPF_JVM_OPTIONS=")) {
                    return Arrays.asList(line.substring(line.indexOf('=') + 1).replace("\"", "").trim().split("\\s+"));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + script.toAbsolutePath(), e);
        }
        throw new AssertionError(script + " sets no LPF_JVM_OPTIONS");
    }
}
