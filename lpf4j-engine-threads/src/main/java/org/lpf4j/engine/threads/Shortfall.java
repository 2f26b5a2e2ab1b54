package org.lpf4j.engine.threads;

import org.lpf4j.Lpf;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How many processes an {@code exec} of the threads engine grants, and the one warning per JVM
 * when that is fewer than asked. From the root: {@code Lpf.MAX_P} means the machine size
 * ({@code lpf.engine.threads.procs}); any other p is granted up to {@code lpf.engine.threads.maxProcs}
 * (processes are threads: more than the cores run oversubscribed). Nested: at most the
 * processors assigned to the calling process, which {@code lpf.engine.threads.procs} raises.
 */
final class Shortfall {
    private Shortfall() {}

    /** The logger the warning goes to. */
    static final String LOGGER = "org.lpf4j.engine.threads";
    private static final AtomicBoolean WARNED = new AtomicBoolean();
    /** Where the warning goes; tests replace it. */
    static volatile System.Logger logger = System.getLogger(LOGGER);

    /**
     * @param asked    the p passed to exec, ≥ 1
     * @param root     whether exec is called on the root context
     * @param freeP    the calling context's free processors
     * @param settings the engine's settings
     * @return the processes the section gets, 1 ≤ result ≤ asked
     */
    static int granted(int asked, boolean root, int freeP, ThreadsSettings settings) {
        if (root && asked == Lpf.MAX_P) return settings.procs();
        int limit = root ? Math.max(settings.maxProcs(), settings.procs()) : Math.max(1, freeP);
        if (asked <= limit) return asked;
        String message = message(asked, limit, root);
        if (WARNED.compareAndSet(false, true)) {
            logger.log(System.Logger.Level.WARNING, message
                    + " (warned once per JVM)");
        }
        return limit;
    }

    /** The warning for an exec of {@code asked} processes that gets {@code limit}. */
    static String message(int asked, int limit, boolean root) {
        return root
                ? "exec(p=" + asked + ") on the threads engine's root runs " + limit + " processes: raise "
                        + ThreadsParameters.MAX_PROCS.key() + " (now " + limit + ") for more"
                : "nested exec(p=" + asked + ") on the threads engine runs " + limit
                        + " processes (the processors assigned to the calling process): raise "
                        + ThreadsParameters.PROCS.key() + " for more";
    }

    /** For tests: the next shortfall warns again. */
    static void rearm() { WARNED.set(false); }
}
