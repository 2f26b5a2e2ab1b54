package org.lpf4j.boot;

import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link System.Logger} that keeps every message, for tests that check what was logged. */
final class RecordingLogger implements System.Logger {
    final List<String> lines = new CopyOnWriteArrayList<>();

    @Override public String getName() { return "recording"; }

    @Override public boolean isLoggable(Level level) { return true; }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) { lines.add(level + " " + msg); }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        lines.add(level + " " + (params == null ? format : java.text.MessageFormat.format(format, params)));
    }

    boolean any(String text) { return lines.stream().anyMatch(l -> l.contains(text)); }
}
