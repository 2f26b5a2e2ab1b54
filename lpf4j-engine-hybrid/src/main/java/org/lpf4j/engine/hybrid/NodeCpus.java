package org.lpf4j.engine.hybrid;

import org.lpf4j.engine.mpi.layered.LaunchedHost;
import org.lpf4j.engine.threads.kit.Cpus;

/**
 * Gives each node JVM on a shared host its own share of the host's CPUs when the host's node
 * JVMs together run more threads than it has CPUs (several nodes on one machine: tests, a
 * laptop, {@code lpf run --engine hybrid --nodes N}), as an MPI launcher's {@code --bind-to}
 * would for one thread per rank. Node JVM i of n on the host keeps CPUs [i·c/n, (i+1)·c/n) of
 * the c it may use.
 *
 * <p><b>Why.</b> Each superstep every thread of every node must run. Unbound, a node's threads
 * and another node's share the cores in whatever way the scheduler chose, and a node's leader
 * waiting inside MPI must yield its core at every poll (it could be holding up another node's
 * thread), which costs a context switch per poll. Bound, a node's threads share only their own
 * cores, so that the leader, whose round starts only when all of its node's threads have arrived, can
 * wait in MPI without yielding ({@link YieldingProgress}); the other nodes run on cores of their own.
 *
 * <p>Nothing is bound when the launcher gives no local rank, when this JVM may already use fewer
 * CPUs than are online (the launcher or a cpuset bound it: that binding stands), when there are
 * fewer CPUs than node JVMs, when the threads fit the CPUs, or with
 * {@code lpf.engine.hybrid.bind=none}. Costs a few system calls, once, before MPI starts.
 */
final class NodeCpus {
    private NodeCpus() {}

    /**
     * Binds the calling thread (and so every thread it starts later: the node's processes, MPI's
     * own threads) to this node JVM's share, if the rules above say so.
     *
     * @param threads the node's threads
     * @return whether it bound
     */
    static boolean bindIfShared(int threads) {
        if (!HybridEngine.BIND.get().equals("auto")) return false;
        int[] local = LaunchedHost.localRank();
        int allowed = Cpus.allowed();
        return local != null && shouldBind(local[1], threads, allowed, Cpus.online())
                && Cpus.bindToShare(local[0], local[1]) > 0;
    }

    /**
     * @param nodesOnHost the node JVMs on this host
     * @param threads     threads per node
     * @param allowed     CPUs this JVM may use now (-1: unknown)
     * @param online      CPUs online (-1: unknown)
     * @return whether the node JVMs should split the CPUs
     */
    static boolean shouldBind(int nodesOnHost, int threads, int allowed, int online) {
        return nodesOnHost > 1 && allowed > 0 && allowed == online && nodesOnHost <= allowed
                && (long) nodesOnHost * threads > allowed;
    }
}
