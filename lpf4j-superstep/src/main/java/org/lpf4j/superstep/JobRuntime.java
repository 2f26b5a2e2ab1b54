package org.lpf4j.superstep;

import org.lpf4j.Context;

/**
 * A multi-JVM engine's life in one JVM of a job, once it joined: rank 0 returns the root
 * context (and releases the others when its JVM ends, from a shutdown hook installed once);
 * every other rank serves the sections rank 0 starts and never returns ({@link #serve} ends the
 * JVM). The engine keeps one instance per JVM ({@link #shutdownAtRoot} stops it at rank 0).
 */
public abstract class JobRuntime {
    private final String engine;
    private boolean hookInstalled;

    /** @param engine the engine's name, for the shutdown hook's thread */
    protected JobRuntime(String engine) { this.engine = engine; }

    /** @return this JVM's rank in the job, 0 ≤ rank &lt; size */
    protected abstract int rank();

    /**
     * The engine's root: rank 0 gets the root context; other ranks serve and never return.
     *
     * @return rank 0's root context
     */
    public final Context root() {
        if (rank() != 0) {
            serve();
            throw new IllegalStateException(engine + " rank " + rank() + ": serve() returned"); // it ends the JVM
        }
        synchronized (this) {
            if (!hookInstalled) {
                hookInstalled = true;
                Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "lpf-" + engine + "-shutdown"));
            }
        }
        return rootContext();
    }

    /**
     * Stops a runtime if it started in this JVM and this JVM is rank 0 (the other ranks exit).
     *
     * @param runtime the engine's instance, or null if it never started
     */
    public static void shutdownAtRoot(JobRuntime runtime) {
        if (runtime != null && runtime.rank() == 0) runtime.stop();
    }

    /** Ranks 1 ..: runs the sections rank 0 starts until it stops the job, then ends the JVM. */
    protected abstract void serve();

    /** Rank 0: releases the other ranks and frees the job's connections; idempotent. */
    protected abstract void stop();

    /** @return rank 0's root context */
    protected abstract Context rootContext();
}
