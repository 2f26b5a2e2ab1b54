package org.lpf4j.engine.net;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * The connection table of one {@link Mesh}: its peers, each with its main and large connection
 * ({@link Peer}), which of them are made, dialled or linked through shared memory, and the frames
 * held for connections still being made. It asks {@link Connections} for a dial when a send needs
 * a connection ({@link #want}) and takes the connections that were made into the mesh
 * ({@link #admit}: registered with the selector, fed the news of earlier deaths). A peer is made
 * on first use; a connection's arrival grows the arrays of connections by one (set-up, not a
 * sync's cost). Used by one thread at a time.
 */
final class ConnTable {
    private final int rank, size, bufferBytes;
    private final Consumer<String> log;
    private final Selector selector;
    /** How connections are made: dials, the listening socket, handshakes. */
    final Connections connections;
    /** Per rank, made when this process first sends to, receives from or is dialled by it. */
    final Peer[] peers;
    /** Every connection ready for frames, of every peer. */
    Conn[] conns = new Conn[0];
    /** The connections whose frames go through shared memory ({@link ShmLink}), polled by every step of progress. */
    Conn[] linked = new Conn[0];
    /** Whether every connection is linked: the sockets (wake-ups, ends) then need a look only now and then while spinning. */
    boolean linkedOnly;
    /**
     * Connections holding staged frames while their socket is still being made. A wait ends only
     * once there are none: a process that leaves the mesh's calls after a wait (to compute, or to
     * close its boot session) must not keep a peer waiting for frames that sit in its buffers.
     */
    int held;
    /** The connections were dropped as a killed JVM's would be ({@link #dropConnections}); nothing more is said. */
    boolean dropped;
    private FrameIo frames;
    private Failures failures;

    /** @param bufferBytes each of a connection's two buffers ({@link Mesh#bufferBytes}) */
    ConnTable(int rank, int size, int bufferBytes, Selector selector, Connections connections, Consumer<String> log) {
        this.bufferBytes = bufferBytes;
        this.rank = rank;
        this.size = size;
        this.selector = selector;
        this.connections = connections;
        this.log = log;
        this.peers = new Peer[size];
    }

    void wire(FrameIo frames, Failures failures) {
        this.frames = frames;
        this.failures = failures;
    }

    /** A send needs {@code c}, which has no channel yet: dials it, or waits for the connection that makes it. */
    void want(Conn c) {
        Peer p = c.peer;
        if (p.dead || dropped) return;
        if (c == p.shared) {
            // No dial when the peer's main connection was accepted or is being dialled already.
            if (!p.dialsMain) p.dialsMain = connections.dialMain(p.rank);
        } else if (p.shared.channel == null) {
            want(p.shared); // the large connection comes after the main one (attach asks for it then)
        } else if (!p.dialsMain && !p.dialsLarge) {
            // The large connection is dialled once the main one is in place and no dial of this rank's
            // could still become it (a main connection both dialled at once: the higher rank's is the large one).
            p.dialsLarge = true;
            connections.dialLarge(p.rank);
        }
    }

    /** Takes the connections made (and dials that failed) since the last call into the mesh. */
    void admit() {
        connections.launchDials();
        for (Connections.Ready r; (r = connections.poll()) != null; ) {
            Peer p = peerOf(r.rank());
            if (r.intent() == Connections.WITHDRAWN) {
                // The main connection this process expected from the peer will not come: dial it if frames wait for it.
                if (p.shared.channel == null && (p.shared.held || p.large.held)) want(p.shared);
                continue;
            }
            if (r.intent() == Handshake.MAIN) p.dialsMain = false;
            else if (r.intent() == Handshake.LARGE) p.dialsLarge = false;
            if (r.failure() != null) {
                failures.died(p.shared, r.failure());
                continue;
            }
            Conn c = r.role() == Handshake.MAIN ? p.shared : p.large;
            if (p.dead || dropped || c.channel != null) {
                if (c.channel != null) log.accept("lpf4j net: rank " + rank + " dropped a second connection of role " + r.role() + " from rank " + r.rank());
                r.discard();
                continue;
            }
            attach(c, r.channel(), r.link());
        }
    }

    private void attach(Conn c, SocketChannel ch, ShmLink link) {
        try {
            ch.configureBlocking(false);
            c.channel = ch;
            c.buffers(bufferBytes); // what the peer sends is read into them from now on
            c.key = ch.register(selector, SelectionKey.OP_READ, c);
            unhold(c);
        } catch (IOException e) {
            Mesh.closeQuietly(ch);
            c.channel = null;
            failures.died(c, "the connection to pid " + c.rank + " broke as it was made (" + e + ")");
            return;
        }
        conns = java.util.Arrays.copyOf(conns, conns.length + 1);
        conns[conns.length - 1] = c;
        if (link != null) {
            c.link = link;
            linked = java.util.Arrays.copyOf(linked, linked.length + 1);
            linked[linked.length - 1] = c;
        }
        linkedOnly = linked.length == conns.length;
        Peer p = c.peer;
        if (c == p.shared) {
            // News of deaths reaches a process that connects later, too.
            for (Peer q : peers) if (q != null && q.dead && q != p) failures.stageFail(c, q.rank, q.death);
            if (p.large.writing() && p.large.channel == null) want(p.large);
        }
        if (c.writing()) {
            c.dirty = true;
            frames.anyDirty = true;
        }
        frames.interest(c);
    }

    /** Makes the main connection to {@code r} now, unless it is made or being made: a process that waits for {@code r} sees it die. */
    void connect(int r) {
        Peer p = peer(r);
        if (p.shared.channel == null) want(p.shared);
    }

    /** A connection made, or a peer dead: its staged frames no longer hold a wait. */
    void unhold(Conn c) {
        if (c.held) {
            c.held = false;
            held--;
        }
    }

    Peer peer(int r) {
        if (r < 0 || r >= size || r == rank) throw new IllegalArgumentException("rank " + r + " of a mesh of " + size + " at rank " + rank);
        Peer p = peers[r];
        return p != null ? p : peerOf(r);
    }

    /** @return rank {@code r}'s peer, made on first use (its connections are made when a send needs them) */
    Peer peerOf(int r) {
        Peer p = peers[r];
        if (p == null) peers[r] = p = new Peer(rank, r);
        return p;
    }

    /** @return the connections of this mesh whose socket is open (made on first use): for the engine's counts */
    int openConnections() {
        int n = 0;
        for (Conn c : conns) if (c.channel != null && c.channel.isOpen()) n++;
        return n;
    }

    /** @return the connections whose socket is open and whose frames take {@code path} ({@link ConnectionPaths}) */
    int openConnections(int path) {
        int n = 0;
        for (Conn c : conns) if (c.channel != null && c.channel.isOpen() && ConnectionPaths.of(c.link) == path) n++;
        return n;
    }

    /** @return the path of the main connection with rank {@code r} ({@link ConnectionPaths}), or -1 if it is not made */
    int pathTo(int r) {
        Peer p = peers[r];
        return p == null || p.shared.channel == null ? -1 : ConnectionPaths.of(p.shared.link);
    }

    /** @return whether this process holds a connection with rank {@code r} */
    boolean connectedTo(int r) {
        Peer p = peers[r];
        return p != null && (p.shared.channel != null || p.large.channel != null);
    }

    /** @return the ranks this process holds a connection with */
    int peersConnected() {
        int n = 0;
        for (int r = 0; r < size; r++) if (connectedTo(r)) n++;
        return n;
    }

    /** @return the peers whose main connection goes through shared memory (for tests) */
    int linkedPeers() {
        int n = 0;
        for (Conn c : linked) if (c == c.peer.shared) n++;
        return n;
    }

    /** Closes every connection and the listening socket without a goodbye, as the death of this JVM would ({@link Mesh#leave}). */
    void dropConnections() {
        dropped = true;
        connections.close();
        for (Peer p : peers) if (p != null) p.closeChannels();
    }
}
