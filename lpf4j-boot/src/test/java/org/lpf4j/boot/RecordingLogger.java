package org.lpf4j.boot;

import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link System.Logger} that keeps every message, for tests that check what was logged. */
public final class RecordingLogger implements System.Logger {
    /** What was logged, each line its level and message. */
    public final List<String> lines = new CopyOnWriteArrayList<>();

    @Override public String getName() { return "recording"; }

    @Override public boolean isLoggable(Level level) { return true; }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) { lines.add(level + " " + msg); }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        lines.add(level + " " + (params == null ? format : java.text.MessageFormat.format(format, params)));
    }

    /** @return whether a line contains {@code text} */
    public boolean any(String text) { return lines.stream().anyMatch(l -> l.contains(text)); }

    @Override public String toString() { return String.join("\n", lines); }

    /** @return how many lines contain {@code text} */
    public long count(String text) { return lines.stream().filter(l -> l.contains(text)).count(); }
}
