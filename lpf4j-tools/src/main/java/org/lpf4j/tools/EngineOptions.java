package org.lpf4j.tools;

import org.lpf4j.Context;
import org.lpf4j.Lpf;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options every engine-using subcommand shares ({@code --engine}, {@code --param}); a picocli
 * mixin. {@link #apply(String, int)} turns them into parameter settings in a {@link ParameterScope}.
 */
final class EngineOptions {
    @Option(names = "--engine", paramLabel = "ENGINE",
            description = "the engine to use (sets lpf.engine); default: the usable engine of highest priority")
    String engine;

    @Option(names = "--param", paramLabel = "KEY=VALUE", mapFallbackValue = "",
            description = "sets an LPF parameter with launcher precedence, e.g. --param lpf.debug=true "
                    + "(repeatable)")
    Map<String, String> params = new LinkedHashMap<>();

    /**
     * Applies {@code --param}s, then {@code --engine}, then asks the engine so chosen for
     * {@code procs} processes.
     *
     * @param command the command's name for error messages, e.g. {@code "lpf run"}
     * @param procs   the command's {@code -p}: processes it needs on the selected engine's root
     *                ({@code null}: no requirement)
     * @return the scope whose {@code close()} undoes the settings
     * @throws UsageException if {@code procs < 1}, a key is unknown or a value invalid
     */
    ParameterScope apply(String command, Integer procs) {
        if (procs != null && procs < 1) {
            throw new UsageException(command + ": -p " + procs + ": the number of processes must be at least 1");
        }
        ParameterScope scope = new ParameterScope();
        try {
            params.forEach(scope::set);
            if (engine != null) scope.set("lpf.engine", engine);
            if (procs != null) scope.forProcs(procs);
            return scope;
        } catch (IllegalArgumentException | IllegalStateException e) {
            scope.close();
            throw usage(command, e);
        }
    }

    /**
     * @return the usage error of {@code command} for a refused setting: what the core calls a
     *         programmatic setting is, in a command, one of its options
     */
    static UsageException usage(String command, RuntimeException e) {
        String message = String.valueOf(e.getMessage()).replace(" (from programmatic)", " (from the command line)");
        return new UsageException(command + ": " + message);
    }

    /** @return these options as arguments again ({@code --engine E --param k=v ...}), for the processes a launcher starts */
    java.util.List<String> asArguments() {
        java.util.List<String> args = new java.util.ArrayList<>();
        if (engine != null) args.addAll(java.util.List.of("--engine", engine));
        params.forEach((k, v) -> args.addAll(java.util.List.of("--param", k + "=" + v)));
        return args;
    }

    /**
     * The root context of the selected engine, after {@link #apply}.
     *
     * @param command the command's name for error messages
     * @return {@link Lpf#root()}
     * @throws UsageException if the chosen engine is not installed or cannot run, or a parameter is invalid
     */
    static Context root(String command) {
        try {
            return Lpf.root();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw usage(command, e);
        }
    }
}
