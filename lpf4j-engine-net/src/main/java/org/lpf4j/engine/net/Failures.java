package org.lpf4j.engine.net;

import org.lpf4j.superstep.Transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.Consumer;

/**
 * Failure detection and spreading of one {@link Mesh}. A peer whose connection ends without its
 * goodbye, breaks, or sends what is not this job's protocol is marked dead ({@link #died}); the
 * news goes as a {@link Frame#FAIL} over every main connection this process holds, and each
 * process that hears it first does the same ({@link #heard}); every wait of a section the dead
 * peer belongs to then throws {@link Transport.Stopped} ({@link #checkAlive}, O(members)). Only a
 * death allocates (its notice); used by one thread at a time.
 */
final class Failures {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private final int rank, size;
    private final Consumer<String> log;
    private ConnTable table;
    private FrameIo frames;
    private Matching matching;

    Failures(int rank, int size, Consumer<String> log) {
        this.rank = rank;
        this.size = size;
        this.log = log;
    }

    void wire(ConnTable table, FrameIo frames, Matching matching) {
        this.table = table;
        this.frames = frames;
        this.matching = matching;
    }

    /** The longest death notice ({@link Frame#FAIL}) a peer may send. */
    static final int FAIL_MAX = 4096;

    /** What sends of death notices count (nothing waits for them). */
    private final int[] failSends = new int[1];

    /** Marks the peer of {@code c} dead, for {@code why}, closes both its connections and tells the others. */
    void died(Conn c, String why) {
        if (markDead(c.peer, why + " (seen by pid " + rank + ")")) spread(c.rank, c.peer.death, false);
    }

    /** @return whether {@code p} was not known dead before */
    private boolean markDead(Peer p, String why) {
        if (p.dead) return false;
        table.unhold(p.shared);
        table.unhold(p.large);
        p.dead = true;
        p.death = why;
        p.cancelKeys();
        p.closeChannels();
        return true;
    }

    /**
     * Sends a death notice of {@code dead} to every peer this process holds a main connection with
     * (the dead one aside): written as far as each socket takes it now, or, when this process is
     * the one {@code leaving}, within the goodbye's bound each (its connections close next).
     */
    private void spread(int dead, String why, boolean leaving) {
        if (table.dropped) return;
        for (Peer q : table.peers) {
            if (q == null || q.dead || q.shared.channel == null) continue;
            if (!leaving) {
                stageFail(q.shared, dead, why);
                frames.write(q.shared);
                continue;
            }
            try {
                stageFail(q.shared, dead, why);
                frames.drain(q.shared);
            } catch (IOException | RuntimeException e) {
                // that peer sees the connection end instead
            }
        }
    }

    /** Stages a death notice of {@code dead} on {@code c}, behind what is staged there. */
    void stageFail(Conn c, int dead, String why) {
        byte[] text = why.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] notice = new byte[4 + Math.min(text.length, FAIL_MAX - 4)];
        MemorySegment n = MemorySegment.ofArray(notice);
        n.set(INT, 0, dead);
        System.arraycopy(text, 0, notice, 4, notice.length - 4);
        frames.send(Frame.FAIL, matching.activeSection, n, 0, notice.length, c.rank, failSends, 0);
    }

    /**
     * This process leaves the job for an error of its own ({@link Mesh#leave}): a death notice
     * naming itself goes over every main connection it holds, each written within the goodbye's
     * bound; the caller then closes every connection. A peer that misses it sees a connection end
     * without goodbye, or hears the news from another.
     */
    void leave(String why) { spread(rank, why, true); }

    /** A death notice came from the peer of {@code c}: the process it names died; this one passes the news on. */
    void heard(Conn c, Stash s) {
        int dead = s.length >= 4 ? s.bytes.get(INT, 0) : -1;
        String why = s.length >= 4 ? new String(s.bytes.asSlice(4, s.length - 4).toArray(ValueLayout.JAVA_BYTE),
                java.nio.charset.StandardCharsets.UTF_8) : "";
        matching.unstash(Frame.FAIL * size + c.rank, s);
        if (dead < 0 || dead >= size) throw broken(c, "a death notice of rank " + dead);
        if (dead == rank || table.dropped) return; // a peer that lost its connections to this one: it will be told otherwise
        Peer p = table.peerOf(dead);
        if (markDead(p, why)) spread(dead, why, false);
    }

    Transport.Stopped broken(Conn c, String what) {
        died(c, "pid " + c.rank + " sent " + what + ": not this job's protocol; its connections are closed");
        log.accept("lpf4j net: rank " + rank + ": " + c.peer.death);
        return new Transport.Stopped(c.peer.death);
    }

    void checkAlive() {
        for (int r = 0; r < matching.activeMembers; r++) {
            Peer p = table.peers[r];
            if (p != null && p.dead) throw new Transport.Stopped(p.death);
        }
    }
}
