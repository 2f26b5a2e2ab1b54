package org.lpf4j.tools;

import org.lpf4j.spi.ProcessLauncher;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;

/**
 * {@code lpf run} (or {@code lpf bench}) delegated to a multi-process engine's {@link ProcessLauncher}: starts the
 * launcher's command with inherited standard streams, waits for it, and returns its exit status.
 * Whatever happens (interrupt, exception, this JVM ended by a signal), the whole process tree it
 * started is ended (SIGTERM, then SIGKILL) before this returns or the JVM exits. Costs one process start; the command's own processes are the engine's business.
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
     * @throws UsageException if the launcher refuses the launch or its command cannot be started
     */
    static int run(String command, ProcessLauncher launcher, ProcessLauncher.Launch launch, PrintWriter out) {
        List<String> line;
        try {
            line = launcher.command(launch);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // The launcher refuses the options it was given (e.g. --nodes above -p, or one it cannot honour here).
            String why = String.valueOf(e.getMessage());
            throw new UsageException(why.startsWith("lpf ") ? why : command + ": " + why);
        }
        out.flush();
        Process process;
        try {
            process = new ProcessBuilder(line).inheritIO().start();
        } catch (IOException e) {
            throw new UsageException(command + ": cannot start " + line + ": " + e.getMessage());
        }
        // kill (SIGTERM) of this JVM, scancel of a batch job: the job goes with it (its ranks may not be our children)
        Thread hook = new Thread(() -> stop(process), "lpf-stop-launched-job");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProgramFailure(command + ": interrupted while waiting for " + line.getFirst(), e);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook stops the job
            }
            stop(process);
        }
    }

    /**
     * Ends the launcher's tree if it still runs: first SIGTERM to all of it, for up to 3 s, so that a
     * launcher whose ranks are not its descendants (srun: slurmd starts them) can end its job, then
     * SIGKILL to whatever is left of the tree.
     */
    private static void stop(Process process) {
        List<ProcessHandle> tree = process.descendants().toList(); // before they can be orphaned
        if (process.isAlive()) {
            tree.forEach(ProcessHandle::destroy);
            process.destroy();
            try {
                process.onExit().get(3, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                // killed below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        tree.forEach(ProcessHandle::destroyForcibly);
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
