package org.lpf4j.tools;

import org.lpf4j.spi.ProcessLauncher;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;

/**
 * {@code lpf run} delegated to a multi-process engine's {@link ProcessLauncher}: starts the
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
        List<String> command = launcher.command(launch);
        out.flush();
        Process process;
        try {
            process = new ProcessBuilder(command).inheritIO().start();
        } catch (IOException e) {
            throw new UsageException("lpf run: cannot start " + command + ": " + e.getMessage());
        }
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProgramFailure("lpf run: interrupted while waiting for " + command.getFirst(), e);
        } finally {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
