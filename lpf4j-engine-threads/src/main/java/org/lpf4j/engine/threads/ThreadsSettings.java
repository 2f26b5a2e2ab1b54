package org.lpf4j.engine.threads;

import org.lpf4j.spi.kit.BulkCopy;

/**
 * The threads engine's parameters, resolved once when a root context or a hook group is made
 * (so sections, barriers and probes never read global parameters on their paths). Immutable.
 *
 * @param procs       the machine size: the most processes an exec from the root gets
 * @param spin        nanoseconds a waiter spins, or -1 (chosen from processes vs cores)
 * @param yield       nanoseconds a waiter yields before parking, or -1
 * @param probeMillis time budget of the first probe per p
 * @param barrier     auto, central or dissemination
 * @param maxProcs    the most processes an explicit {@code exec(p)} from the root gets
 * @param hookTimeoutMillis how long the members of a hook wait for the missing ones (0: forever)
 * @param syncTimeoutMillis how long processes waiting in a sync wait for the missing ones (0: forever)
 * @param spread      whether processes that find themselves on one CPU move apart (while p <= cores)
 * @param copy        how a sync copies request bytes ({@code lpf.copy})
 */
record ThreadsSettings(int procs, int spin, int yield, int probeMillis, String barrier, int maxProcs,
                       int hookTimeoutMillis, int syncTimeoutMillis, boolean spread, BulkCopy copy) {
    /** Settings that copy with {@code lpf.copy}'s current value (tests). */
    ThreadsSettings(int procs, int spin, int yield, int probeMillis, String barrier, int maxProcs,
                    int hookTimeoutMillis, int syncTimeoutMillis, boolean spread) {
        this(procs, spin, yield, probeMillis, barrier, maxProcs, hookTimeoutMillis, syncTimeoutMillis, spread, BulkCopy.resolve());
    }

    /** @return the current values of the engine's parameters */
    static ThreadsSettings resolve() {
        return new ThreadsSettings(ThreadsParameters.PROCS.get(), ThreadsParameters.SPIN.get(), ThreadsParameters.YIELD.get(),
                ThreadsParameters.PROBE_MILLIS.get(), ThreadsParameters.BARRIER.get(), ThreadsParameters.MAX_PROCS.get(),
                ThreadsParameters.HOOK_TIMEOUT.get(), ThreadsParameters.SYNC_TIMEOUT.get(), ThreadsParameters.SPREAD.get(),
                BulkCopy.resolve());
    }

    /** @return these settings with a machine size of at least {@code n} */
    ThreadsSettings withProcsAtLeast(int n) {
        return n <= procs ? this : new ThreadsSettings(n, spin, yield, probeMillis, barrier,
                Math.max(n, maxProcs), hookTimeoutMillis, syncTimeoutMillis, spread, copy);
    }
}
