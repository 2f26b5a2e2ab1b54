package org.lpf4j.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;

/**
 * The {@code lpf} command (entry point of {@code bin/lpf}): {@code lpf run}, {@code lpf probe},
 * {@code lpf bench}. A subcommand is a picocli {@code @Command} class implementing
 * {@code Callable<Integer>}; to add one, list its class in {@code subcommands} below.
 *
 * <p>Exit status: 0 on success, {@value ProgramFailure#EXIT_CODE} when the program or a benchmark
 * section failed, {@value UsageException#EXIT_CODE} for a usage error (bad option, unknown class,
 * unknown engine or parameter). Errors are printed as one clear line (plus the cause's stack trace
 * for a failed program).
 */
@Command(name = "lpf", mixinStandardHelpOptions = true, version = "lpf4j 0.1.0",
        description = "Lightweight Parallel Foundations for Java: run, probe and benchmark BSP programs.",
        subcommands = {RunCommand.class, ProbeCommand.class, BenchCommand.class, InfoCommand.class, BootTestCommand.class,
                CheckpointCommand.class})
public class LpfCommand implements Runnable {
    @Spec CommandSpec spec;

    /** For picocli. */
    public LpfCommand() {}

    /** Without a subcommand: the usage message, as an error. */
    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "lpf: missing subcommand (run, probe, bench, ...)");
    }

    /**
     * @return the configured command line: arguments after {@code run}'s class name belong to the
     *         program, even if they look like options
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new LpfCommand());
        cl.getSubcommands().get("run").setStopAtPositional(true);
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            switch (e) {
                case UsageException u -> {
                    err.println(u.getMessage());
                    err.flush();
                    return UsageException.EXIT_CODE;
                }
                case ProgramFailure f -> {
                    err.println(f.getMessage());
                    if (f.getCause() != null) f.getCause().printStackTrace(err);
                    err.flush();
                    return ProgramFailure.EXIT_CODE;
                }
                default -> throw e;
            }
        });
        return cl;
    }

    /**
     * Runs {@code lpf} with {@code args}, printing to {@code out} and {@code err} (a program's
     * own {@code System.out} output is not redirected).
     *
     * @param out  standard output of the command
     * @param err  error output of the command
     * @param args subcommand and its arguments
     * @return the exit status
     */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = commandLine();
        cl.setOut(out);
        cl.setErr(err);
        return cl.execute(args);
    }

    /**
     * The {@code lpf} command line.
     *
     * @param args subcommand and its arguments
     */
    public static void main(String[] args) {
        int status = commandLine().execute(args);
        shutdownEngines();
        System.exit(status);
    }

    /** The engines' shutdown step, once, at the end of the {@code lpf} process. */
    private static void shutdownEngines() {
        for (org.lpf4j.spi.EngineProvider e : org.lpf4j.spi.Engines.installed()) {
            try {
                e.shutdown();
            } catch (RuntimeException problem) {
                System.err.println("lpf: engine " + e.name() + " could not shut down: " + problem);
            }
        }
    }
}
