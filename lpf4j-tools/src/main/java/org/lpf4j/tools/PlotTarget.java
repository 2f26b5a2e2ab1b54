package org.lpf4j.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks a {@code --plot} target before anything is measured, so that a benchmark or a probe does
 * not run for minutes and then fail to write its charts: the directory the charts go into is
 * created if missing (as the charts would create it) and must be a writable directory.
 */
final class PlotTarget {
    private PlotTarget() {}

    /**
     * {@code lpf bench --plot DIR}: DIR is created if missing and must be a writable directory.
     *
     * @param command the command's name for the message, e.g. {@code "lpf bench"}
     * @param dir     the option's value
     * @throws UsageException if DIR cannot be made or written
     */
    static void directory(String command, Path dir) {
        writableDirectory(command, dir, dir);
    }

    /**
     * {@code lpf probe --plot FILE}: the directory of {@code FILE.png} and {@code FILE.svg} is
     * created if missing and must be a writable directory.
     *
     * @param command the command's name for the message, e.g. {@code "lpf probe"}
     * @param file    the option's value
     * @throws UsageException if its directory cannot be made or written
     */
    static void file(String command, Path file) {
        Path parent = file.toAbsolutePath().normalize().getParent();
        if (parent != null) writableDirectory(command, file, parent);
    }

    private static void writableDirectory(String command, Path option, Path dir) {
        Path d = dir.toAbsolutePath().normalize();
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new UsageException(command + ": --plot " + option + ": cannot create the directory " + d + ": " + reason(e));
        }
        if (!Files.isDirectory(d)) throw new UsageException(command + ": --plot " + option + ": " + d + " is not a directory");
        if (!Files.isWritable(d)) throw new UsageException(command + ": --plot " + option + ": " + d + " is not writable");
    }

    private static String reason(IOException e) {
        return switch (e) {
            case java.nio.file.FileAlreadyExistsException f -> f.getFile() + " exists and is not a directory";
            case java.nio.file.FileSystemException f when f.getReason() != null -> f.getReason();
            default -> e.toString();
        };
    }
}
