package org.lpf4j.engine.net;

/** One peer of a {@link Mesh}: its two connections (each without a channel until it is made), and whether it died. Made once per peer. */
final class Peer {
    final int rank;
    /** The main connection: both ways' frames except the higher rank's large payloads. */
    final Conn shared;
    /** The connection the higher rank dialled: the higher rank's large payloads only. */
    final Conn large;
    /** Where this process writes its large payloads to the peer, and where it reads the peer's. */
    final Conn largeOut, largeIn;
    /** Whether this process dials the main connection, or its large one, and has not heard back. */
    boolean dialsMain, dialsLarge;
    boolean dead;
    String death;

    Peer(int me, int rank) {
        this.rank = rank;
        boolean lower = me < rank;
        this.shared = new Conn(this);
        this.large = new Conn(this);
        this.largeOut = lower ? shared : large;
        this.largeIn = lower ? large : shared;
    }

    boolean writing() { return shared.writing() || large.writing(); }

    void cancelKeys() {
        if (shared.key != null) shared.key.cancel();
        if (large.key != null) large.key.cancel();
    }

    void closeChannels() {
        shared.close();
        large.close();
    }
}
