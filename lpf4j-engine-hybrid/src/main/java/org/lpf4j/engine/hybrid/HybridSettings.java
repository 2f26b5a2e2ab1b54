package org.lpf4j.engine.hybrid;

import org.lpf4j.spi.CoreParameters;

import java.io.Serializable;

/**
 * The hybrid engine's parameters as rank 0 resolved them; shipped with every section so that all
 * nodes use the same values. Immutable.
 *
 * @param threads     processes per node (resolved: at least 1)
 * @param perRank     whether every MPI rank is a node (else ranks are grouped by host name)
 * @param spin        nanoseconds a node-local waiter spins, or -1
 * @param yield       nanoseconds it yields before parking, or -1
 * @param probeMillis probe budget per measurement
 * @param sharers     node JVMs on rank 0's host (from the launcher, ≥ 1): their threads share its cores
 * @param copy        how node-local copies are made ({@code lpf.copy}: auto or java), as rank 0 resolved it
 */
record HybridSettings(int threads, boolean perRank, int spin, int yield, int probeMillis, int sharers, String copy)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Settings that copy with {@code lpf.copy}'s default (tests). */
    HybridSettings(int threads, boolean perRank, int spin, int yield, int probeMillis, int sharers) {
        this(threads, perRank, spin, yield, probeMillis, sharers, "auto");
    }

    /**
     * @param ranksOnThisHost how many MPI ranks share rank 0's host (from the launcher), ≥ 1
     * @return the current values of the engine's parameters
     */
    static HybridSettings resolve(int ranksOnThisHost) { return resolve(ranksOnThisHost, 0); }

    /**
     * @param ranksOnThisHost how many MPI ranks share this host, ≥ 1
     * @param threads         processes per node, or 0 for {@code lpf.engine.hybrid.threads}
     * @return the current values of the engine's parameters, with that thread count
     */
    static HybridSettings resolve(int ranksOnThisHost, int threads) {
        int t = threads > 0 ? threads : HybridParameters.THREADS.get();
        if (t == 0) t = Math.max(1, Runtime.getRuntime().availableProcessors() / Math.max(1, ranksOnThisHost));
        return new HybridSettings(t, HybridParameters.NODES.get().equals("rank"), HybridParameters.SPIN.get(),
                HybridParameters.YIELD.get(), HybridParameters.PROBE_MILLIS.get(), Math.max(1, ranksOnThisHost),
                CoreParameters.COPY.get());
    }

    /**
     * @param nodes   the job's nodes (MPI ranks)
     * @param threads processes per node
     * @return the machine's processes: nodes × threads, or fewer if {@code lpf.engine.hybrid.procs} says so
     */
    static int machineSize(int nodes, int threads) {
        int all = nodes * threads, procs = HybridParameters.PROCS.get();
        return procs > 0 ? Math.min(procs, all) : all;
    }

    /**
     * @param t a node's threads
     * @return the processes competing for this host's cores: the node's threads times the node
     *         JVMs on the host (several when one machine stands for several nodes)
     */
    int competing(int t) { return t * sharers; }

    /**
     * @param t a node's threads
     * @return whether the node's threads keep apart on the CPUs ({@code CpuSpreading}): when the node
     *         has the host to itself, or the host's node JVMs together have no more threads than cores
     */
    boolean spreadsCpus(int t) { return sharers == 1 || competing(t) <= Runtime.getRuntime().availableProcessors(); }

    /**
     * @param t a node's threads
     * @return the node-local barrier's kind: the thread group's choice, except central when the
     *         host's JVMs together have more threads than cores (a dissemination barrier then waits
     *         on descheduled partners round after round)
     */
    String barrier(int t) { return competing(t) > Runtime.getRuntime().availableProcessors() ? "central" : "auto"; }
}
