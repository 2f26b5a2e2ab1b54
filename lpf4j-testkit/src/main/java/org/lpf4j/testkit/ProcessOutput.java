package org.lpf4j.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * What a started process writes, read while it runs (so that a full pipe never stops it) on a
 * daemon thread of its own (not the common pool, which a test's own work may fill).
 */
public final class ProcessOutput {
    private ProcessOutput() {}

    /**
     * @param in a process's output or error stream; closed when read to its end
     * @return the whole text (UTF-8) once the stream ends, or a line saying why it could not be read
     */
    public static CompletableFuture<String> drain(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(read failed: " + e + ")";
            }
        }, r -> Thread.ofPlatform().daemon().start(r));
    }
}
