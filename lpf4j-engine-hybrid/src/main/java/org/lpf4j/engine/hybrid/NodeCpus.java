package org.lpf4j.engine.hybrid;

import org.lpf4j.engine.threads.group.Cpus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Gives each node JVM on a shared host its own share of the host's CPUs while its processes run,
 * when the host's node JVMs together run more threads than it has CPUs (several nodes on one
 * machine: tests, a laptop, {@code lpf run --engine hybrid --nodes N}), as an MPI launcher's
 * {@code --bind-to} would for one thread per rank.
 *
 * <p><b>Why.</b> Each superstep every thread of every node must run. Unbound, a node's threads
 * and another node's share the cores in whatever way the scheduler chose, and a node's leader
 * waiting inside MPI must yield its core at every poll (it could be holding up another node's
 * thread), which costs a context switch per poll. Bound, a node's threads share only their own
 * cores, so that the leader, whose round starts only when all of its node's threads have arrived,
 * can wait without yielding (the engine between the nodes is told so:
 * {@link org.lpf4j.spi.kit.NodeLevelEngine#waitPolicy}; Open MPI's yield setting, the net engine's
 * polling); the other nodes run on cores of their own.
 *
 * <p><b>Which CPUs.</b> The CPUs this JVM may use, hardware threads of one core next to each other
 * (Linux's {@code thread_siblings_list}: with SMT, CPU i and i + cores are usually siblings), cut
 * into equal contiguous shares; node JVM i of n on the host takes share i (as the engine between
 * the nodes says: {@link org.lpf4j.spi.kit.NodeLevelEngine#localRank}). Nothing is bound when
 * the launcher gives no local rank, when this JVM may already use fewer CPUs than are online (the
 * launcher or a cpuset bound it: that binding stands), when the CPUs do not split evenly among the
 * node JVMs, when the threads fit the CPUs, or with {@code lpf.engine.hybrid.bind=none}.
 *
 * <p><b>When.</b> {@link #decide} runs once per JVM, before the engine between the nodes starts
 * (it chooses that engine's wait policy); {@link #enter} binds the thread that runs a node's section for the section's
 * duration, and the threads it starts for the node's other processes inherit the share. Threads
 * outside sections (the program's own, MPI's, the JVM's) keep their CPUs. Costs a few system calls
 * per section.
 */
final class NodeCpus {
    private NodeCpus() {}

    /** This node JVM's share, or null when it does not bind. Written once, before the engine between the nodes starts. */
    private static volatile int[] share;

    /**
     * Chooses this node JVM's share if the rules above say so.
     *
     * @param local   {@code {local rank, node JVMs on this host}}, or null if the launcher does not say
     * @param threads the node's threads
     * @return whether the node's processes will run on a share of their own
     */
    static boolean decide(int[] local, int threads) {
        if (!HybridParameters.BIND.get().equals("auto") || local == null) return false;
        int[] cpus = Cpus.allowedCpus();
        if (!shouldBind(local[1], threads, cpus.length, Cpus.online())) return false;
        share = shareOf(siblingsTogether(cpus), local[0], local[1]);
        return true;
    }

    /**
     * @param nodesOnHost the node JVMs on this host
     * @param threads     threads per node
     * @param allowed     CPUs this JVM may use now (≤ 0: unknown)
     * @param online      CPUs online (-1: unknown)
     * @return whether the node JVMs should split the CPUs
     */
    static boolean shouldBind(int nodesOnHost, int threads, int allowed, int online) {
        return nodesOnHost > 1 && allowed > 0 && allowed == online && allowed % nodesOnHost == 0
                && (long) nodesOnHost * threads > allowed;
    }

    /** @return share {@code i} of {@code n} equal contiguous shares of {@code ordered} */
    static int[] shareOf(int[] ordered, int i, int n) {
        int size = ordered.length / n;
        return Arrays.copyOfRange(ordered, i * size, (i + 1) * size);
    }

    /** @return the CPUs ordered by the lowest CPU of their core (its hardware threads next to each other), then by number */
    static int[] siblingsTogether(int[] cpus) {
        int[][] keyed = new int[cpus.length][];
        for (int k = 0; k < cpus.length; k++) keyed[k] = new int[] {firstSibling(cpus[k]), cpus[k]};
        Arrays.sort(keyed, Comparator.<int[]>comparingInt(e -> e[0]).thenComparingInt(e -> e[1]));
        int[] ordered = new int[cpus.length];
        for (int k = 0; k < cpus.length; k++) ordered[k] = keyed[k][1];
        return ordered;
    }

    /** @return the lowest CPU among {@code cpu}'s hardware-thread siblings (itself if unknown) */
    private static int firstSibling(int cpu) {
        try {
            String list = Files.readString(Path.of("/sys/devices/system/cpu/cpu" + cpu + "/topology/thread_siblings_list"));
            return Integer.parseInt(list.strip().split("[,-]")[0]);
        } catch (IOException | RuntimeException e) {
            return cpu;
        }
    }

    /** @return the number of CPUs the node's processes run on: its share's, or those of the calling thread */
    static int cpusForNode() {
        int[] mine = share;
        return mine != null ? mine.length : Runtime.getRuntime().availableProcessors();
    }

    /** Restores a thread's CPUs when a node's section ends on it. */
    interface Binding extends AutoCloseable {
        @Override void close();
    }

    private static final Binding NONE = () -> {};

    /**
     * Binds the calling thread to this node JVM's share until {@link Binding#close()}, if there is
     * one and the thread is not already on it.
     */
    static Binding enter() {
        int[] mine = share;
        if (mine == null) return NONE;
        int[] before = Cpus.allowedCpus();
        if (Arrays.equals(before, mine) || before.length == 0 || !Cpus.bindTo(mine)) return NONE;
        return () -> Cpus.bindTo(before);
    }
}
