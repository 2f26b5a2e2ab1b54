package org.lpf4j.engine.net;

/**
 * How this JVM's process waits for its peers, as an engine layered on the net engine asked before
 * the mesh was made ({@link org.lpf4j.spi.kit.NodeLevelEngine#waitPolicy}, the hybrid engine's
 * node leader): {@code true} makes a spinning wait yield its core and spin briefly (as when the
 * job's processes outnumber the cores), {@code false} lets it spin on its own core; null when
 * nobody asked, and the mesh judges by the job's processes on this machine. The user's
 * {@code lpf.engine.net.wait} overrides both, and the length of the spin stays the user's when set
 * ({@code lpf.engine.net.spinMicros}).
 */
final class WaitRequest {
    private WaitRequest() {}

    /** The layered engine's choice, or null; written once, before the mesh is made. */
    static volatile Boolean yield;

    /**
     * @param wait  the user's {@code lpf.engine.net.wait}: {@code spin}, {@code yield} or {@code auto}
     * @param local the job's processes on this machine
     * @param cpus  this machine's cores
     * @return whether a spinning wait yields its core (and spins briefly): the user's choice unless
     *         {@code auto}, else the layered engine's if it made one, else whether the local
     *         processes outnumber the cores
     */
    static boolean crowded(String wait, int local, int cpus) {
        if (wait.equals("spin")) return false;
        if (wait.equals("yield")) return true;
        Boolean y = yield;
        return y != null ? y : local > cpus;
    }
}
