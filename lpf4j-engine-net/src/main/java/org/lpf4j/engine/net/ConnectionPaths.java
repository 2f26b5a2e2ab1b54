package org.lpf4j.engine.net;

import org.lpf4j.spi.kit.WireCounts;

import java.util.ArrayList;
import java.util.List;

/**
 * The path a connection of the mesh takes, as {@link LocalPeers} chose it after its handshake:
 * {@link WireCounts#IN_JVM} (rings in this JVM's memory), {@link WireCounts#SHARED_MEMORY} (rings in
 * a shared-memory file) or {@link WireCounts#TCP}. The engine's {@link WireCounts} count the open
 * connections by path ({@code lpf run --profile}, the JFR {@code Superstep} event); with
 * {@link NetParameters#SHOW_PATHS} each rank prints them as its mesh closes, for a test or a user
 * that looks from outside the JVM:
 * <pre>
 * lpf4j net: rank 1 of 4: connections by path: in-JVM 0, shared memory 2, TCP 2; peers by path: in-JVM [], shared memory [0], TCP [2, 3]
 * </pre>
 * The peers are those whose main connection is made, by its path (a pair's large connection takes
 * the same exchange, and so the same path, unless a failure made one of them fall back to TCP).
 *
 * <p>Cost: {@link #of} is a field read; the line allocates, once per mesh.
 */
final class ConnectionPaths {
    private ConnectionPaths() {}

    /** The paths' names, by index: what the line prints. */
    static final List<String> NAMES = List.of("in-JVM", "shared memory", "TCP");

    /** @return the path of a connection whose rings are {@code link} (null: none, TCP) */
    static int of(ShmLink link) {
        return link == null ? WireCounts.TCP : link.inJvm() ? WireCounts.IN_JVM : WireCounts.SHARED_MEMORY;
    }

    /** @return the line {@link NetParameters#SHOW_PATHS} prints for {@code mesh} (see the class's comment) */
    static String line(Mesh mesh) {
        StringBuilder b = new StringBuilder("lpf4j net: rank ").append(mesh.rank()).append(" of ").append(mesh.size())
                .append(": connections by path: ");
        for (int path = 0; path < WireCounts.PATHS; path++) {
            b.append(path == 0 ? "" : ", ").append(NAMES.get(path)).append(' ').append(mesh.openConnections(path));
        }
        b.append("; peers by path: ");
        for (int path = 0; path < WireCounts.PATHS; path++) {
            List<Integer> peers = new ArrayList<>();
            for (int r = 0; r < mesh.size(); r++) if (r != mesh.rank() && mesh.pathTo(r) == path) peers.add(r);
            b.append(path == 0 ? "" : ", ").append(NAMES.get(path)).append(' ').append(peers);
        }
        return b.toString();
    }
}
