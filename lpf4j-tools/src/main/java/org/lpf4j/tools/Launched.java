package org.lpf4j.tools;

import org.lpf4j.spi.ProcessLauncher;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;

/**
 * {@code lpf run} (or {@code lpf bench}) delegated to a multi-process engine's {@link ProcessLauncher}: starts the
 * launcher's command with inherited standard streams, waits for it, and returns its exit status.
 * Whatever happens (interrupt, exception), the whole process tree it started is killed before
 * this returns. Costs one process start; the command's own processes are the engine's business.
 */
final class Launched {
    private Launched() {}

    /**
     * @return the exit status of the launcher's command
     * @throws UsageException if the command cannot be started
     */
    static int run(ProcessLauncher launcher, ProcessLauncher.Launch launch, PrintWriter out) {
        return run("lpf run", launcher, launch, out);
    }

    /**
     * @param command the delegating command's name for error messages, e.g. {@code "lpf bench"}
     * @return the exit status of the launcher's command
     * @throws UsageException if the command cannot be started
     */
    static int run(String command, ProcessLauncher launcher, ProcessLauncher.Launch launch, PrintWriter out) {
        List<String> line = launcher.command(launch);
        out.flush();
        Process process;
        try {
            process = new ProcessBuilder(line).inheritIO().start();
        } catch (IOException e) {
            throw new UsageException(command + ": cannot start " + line + ": " + e.getMessage());
        }
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProgramFailure(command + ": interrupted while waiting for " + line.getFirst(), e);
        } finally {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
