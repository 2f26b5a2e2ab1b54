package org.lpf4j.engine.threads;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lpf4j.Context;
import org.lpf4j.Lpf;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.ResourceBundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * exec on the threads engine runs what it was asked for: an explicit p from the root up to
 * maxProcs (oversubscribed beyond the machine size), MAX_P the machine size; fewer than asked
 * only with one logged warning that names the parameter raising the limit.
 */
@Timeout(60)
class ExecGrantTest {
    private static final ThreadsSettings TWO_CORES = new ThreadsSettings(2, -1, -1, 50, "auto", 6, 60_000, 0, true);

    @Test
    void rootGrantsExplicitPBeyondTheMachineSizeAndMaxPIsTheMachine() {
        Context root = ThreadsEngine.root(TWO_CORES);
        AtomicInteger seen = new AtomicInteger();
        List<String> warnings = capture(() -> {
            root.exec(5, ctx -> seen.set(ctx.nprocs()));
            assertEquals(5, seen.get(), "exec(5) on a machine of 2");
            root.exec(Lpf.MAX_P, ctx -> seen.set(ctx.nprocs()));
            assertEquals(2, seen.get(), "exec(MAX_P) is the machine size");
        });
        assertEquals(List.of(), warnings, "no shortfall, no warning");
    }

    @Test
    void aShortfallIsLoggedOnceNamingTheParameter() {
        Context root = ThreadsEngine.root(TWO_CORES);
        AtomicInteger seen = new AtomicInteger();
        List<String> warnings = capture(() -> {
            root.exec(9, ctx -> seen.set(ctx.nprocs()));
            assertEquals(6, seen.get(), "exec(9) with maxProcs 6");
            root.exec(9, ctx -> seen.set(ctx.nprocs()));
        });
        assertEquals(1, warnings.size(), "one warning per JVM: " + warnings);
        String w = warnings.getFirst();
        assertTrue(w.contains("exec(p=9)") && w.contains("runs 6 processes") && w.contains("lpf.engine.threads.maxProcs"), w);
    }

    @Test
    void aNestedShortfallNamesTheMachineSize() {
        Context root = ThreadsEngine.root(TWO_CORES);
        AtomicInteger inner = new AtomicInteger();
        List<String> warnings = capture(() -> root.exec(2, ctx -> {
            if (ctx.pid() == 0) ctx.exec(3, in -> inner.set(in.nprocs()));
        }));
        assertEquals(1, inner.get(), "each of 2 processes on 2 processors has 1");
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.getFirst().contains("nested exec(p=3)") && warnings.getFirst().contains("lpf.engine.threads.procs"),
                warnings.getFirst());
    }

    /** Runs {@code body} with the shortfall warning re-armed and returns the warnings it logged. */
    private static List<String> capture(Runnable body) {
        List<String> got = new CopyOnWriteArrayList<>();
        System.Logger before = Shortfall.logger;
        Shortfall.logger = new System.Logger() {
            @Override public String getName() { return Shortfall.LOGGER; }
            @Override public boolean isLoggable(Level level) { return true; }
            @Override public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
                if (level == Level.WARNING) got.add(msg);
            }
            @Override public void log(Level level, ResourceBundle bundle, String format, Object... params) {
                if (level == Level.WARNING) got.add(format);
            }
        };
        Shortfall.rearm();
        try {
            body.run();
        } finally {
            Shortfall.logger = before;
        }
        return got;
    }
}
