package org.lpf4j.spi.kit;

import org.lpf4j.spi.ProcessLauncher;

/**
 * An engine that runs one LPF process per JVM (the MPI and net engines), as an engine layered
 * over it sees it: the hybrid engine runs threads inside each of its processes, which it calls
 * nodes. Implemented by the engine's {@link org.lpf4j.spi.EngineProvider}; the layered engine
 * finds that provider by name through {@link org.lpf4j.spi.Components} and needs nothing else of
 * the engine. Everything here is answered before the engine's {@code root()} starts anything,
 * except {@link #jobProcesses()}. Each call costs a few environment or parameter reads.
 */
public interface NodeLevelEngine {
    /**
     * @return {@code {local rank, processes on this host}} of this JVM's process as the launcher
     *         that started it says ({@link LaunchedHost#localRank} for the usual launchers), or
     *         null if it does not say
     */
    int[] localRank();

    /** @return the job's processes (JVMs) on this host as the launcher says, 1 if it does not say */
    default int ranksOnThisHost() {
        int[] local = localRank();
        return local == null ? 1 : local[1];
    }

    /**
     * For a layered engine that wants one JVM per node: tells {@code launcher} (this engine's, from
     * its {@code launcher()}) to start {@code jvms} JVMs on different hosts where it can.
     *
     * @param launcher this engine's launcher; it may be given options
     * @param jvms     the JVMs to start
     * @return whether the JVMs go to different hosts (else they share this one and stand for hosts)
     */
    boolean onePerNode(ProcessLauncher launcher, int jvms);

    /**
     * Chooses how this JVM's process waits for the others inside the engine, before
     * {@code root()}: {@code yield = true} when other threads (a layered engine's node threads)
     * may need this core while it waits, {@code false} when the waiter has cores of its own (a
     * node bound to a share of the host's CPUs). A user's own setting of the engine's wait
     * wins. Best effort.
     *
     * @param yield whether the waiting process yields its core
     */
    void waitPolicy(boolean yield);

    /** @return the job's processes (one per JVM); valid once this engine's {@code root()} has run in this JVM */
    int jobProcesses();
}
