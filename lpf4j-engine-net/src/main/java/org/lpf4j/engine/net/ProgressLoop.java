package org.lpf4j.engine.net;

import org.lpf4j.superstep.Transport;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The progress loop of one {@link Mesh}: no thread of its own, the thread that waits moves the
 * frames. Each step takes the connections made ({@link ConnTable#admit}), writes what was staged,
 * polls the linked connections' rings, and selects the sockets: spinning while bytes flow (for
 * {@code spinNanos} since they last moved, {@code memorySpinNanos} when every connection goes
 * through memory; yielding the core when this machine is crowded), then blocking in
 * {@code select} after asking linked peers for a wake-up. A step allocates nothing
 * (the selection's action is one object); the deadline's message is built only when it throws.
 * The JDK's epoll selector does allocate 16 bytes per ready socket whose descriptor is above the
 * {@code Integer} cache's bound (it boxes the descriptor), unless {@code -XX:AutoBoxCacheMax}
 * raises that bound, as the project's scripts do ({@code BlockedSyncAllocationTest}).
 * Used by one thread at a time.
 */
final class ProgressLoop {
    private final int rank, size;
    private final Selector selector;
    /** How long a wait spins on {@code selectNow}, since bytes last moved, before it blocks in {@code select}. */
    private final long spinNanos;
    /** The same when every connection of the mesh goes through memory (polling rings needs no system call). */
    private final long memorySpinNanos;
    /** Whether more of the mesh's processes run on this machine than it has cores: a spinning wait yields its core. */
    private final boolean crowded;
    private final long timeoutNanos;
    /** The bounds of one blocking {@code select} ({@link #blockMillis}). */
    static final long MIN_BLOCK_MILLIS = 10, MAX_BLOCK_MILLIS = 100;
    /** The active section's superstep, for the deadline's message. */
    long superstep;
    /** Progress steps since the sockets were last looked at while spinning. */
    private int polls;
    private final ConnTable table;
    private final FrameIo frames;
    private final Failures failures;
    private final Matching matching;

    ProgressLoop(int rank, int size, Selector selector, long spinNanos, long memorySpinNanos, boolean crowded, long timeoutNanos,
                 ConnTable table, FrameIo frames, Failures failures, Matching matching) {
        this.rank = rank;
        this.size = size;
        this.selector = selector;
        this.spinNanos = spinNanos;
        this.memorySpinNanos = memorySpinNanos;
        this.crowded = crowded;
        this.timeoutNanos = timeoutNanos;
        this.table = table;
        this.frames = frames;
        this.failures = failures;
        this.matching = matching;
    }

    /**
     * Writes what was staged, then moves frames until {@code pending[batch]} is 0 and no frame
     * waits in this process's buffers for its connection to be made.
     *
     * @param waitingFor what the wait is, for the deadline's message (e.g. "sync at superstep 12")
     */
    void await(int[] pending, int batch, String waitingFor) {
        frames.flush();
        long start = System.nanoTime();
        while (pending[batch] > 0 || table.held > 0) progress(start, waitingFor, -1);
        frames.flush(); // what the last step staged (the acknowledgement of a payload read), for a peer that waits for it
    }

    /**
     * One step of progress: writes what the sockets take, reads what arrived, spinning for a while
     * (yielding the core when this machine runs more of the mesh's processes than it has cores, as
     * Open MPI does when oversubscribed: a spin that keeps its core delays the very peers it waits
     * for) and then blocking in {@code select}; throws {@link Transport.Stopped} when a member of
     * the active section died or the deadline passed.
     */
    void progress(long waitStart, String waitingFor, int waitedPeer) {
        table.admit();
        frames.flush();
        failures.checkAlive();
        try {
            boolean moved = table.linked.length > 0 && pollLinks();
            // Linked peers only: the sockets carry wake-ups and ends, a look now and then suffices while spinning.
            int ready = table.linkedOnly && (++polls & 63) != 0 ? 0 : selector.selectNow(onReady);
            if (ready == 0 && !moved) {
                long now = System.nanoTime();
                if (timeoutNanos > 0 && now - waitStart > timeoutNanos) {
                    throw new Transport.Stopped(stoppedMessage(waitingFor, waitedPeer));
                }
                // Spin while bytes flow: a large transfer arrives in pieces, and blocking between
                // them makes every piece a wake-up of this thread (an IPI on a VM).
                long idle = now - Math.max(waitStart, frames.lastMoved);
                if (idle < (table.linkedOnly ? memorySpinNanos : spinNanos)) {
                    if (crowded) Thread.yield(); else Thread.onSpinWait();
                    return;
                }
                // Before blocking: an interrupted waiter (a host framework cancelling its task) gives up.
                if (Thread.interrupted()) {
                    throw new Transport.Stopped("rank " + rank + " was interrupted while it waited (" + waitingFor + ")");
                }
                if (table.linked.length > 0 && !armLinks()) return;
                selector.select(onReady, blockMillis(idle, timeoutNanos));
                for (Conn c : table.linked) c.link.disarm();
            }
        } catch (IOException e) {
            throw new Transport.Stopped("rank " + rank + ": the mesh's selector failed: " + e);
        }
        failures.checkAlive();
    }

    /**
     * How long one {@code select} may block: a quarter of the time the wait has been idle, from
     * {@link #MIN_BLOCK_MILLIS} to {@link #MAX_BLOCK_MILLIS}, and at most a quarter of the deadline.
     * Whatever ends a wait wakes the selector (bytes, a wake-up, a peer's end, a new connection,
     * an interrupt); the timeout only bounds how late the deadline is looked at. A long idle wait
     * wakes seldom, so that hundreds of processes waiting on a few cores (a job's processes while
     * process 0 runs something of its own) leave the cores to those that work.
     *
     * @param idleNanos    how long the wait has been idle
     * @param timeoutNanos the deadline of a wait, 0 for none
     */
    static long blockMillis(long idleNanos, long timeoutNanos) {
        long millis = Math.min(MAX_BLOCK_MILLIS, Math.max(MIN_BLOCK_MILLIS, idleNanos / 4_000_000));
        return timeoutNanos > 0 ? Math.max(1, Math.min(millis, timeoutNanos / 4_000_000)) : millis;
    }

    /** Moves what the linked connections' rings allow. @return whether any had something to do */
    private boolean pollLinks() {
        boolean any = false;
        for (Conn c : table.linked) {
            if (c.peer.dead) continue;
            boolean open = c.channel.isOpen();
            if (!open) {
                // Closed here without its end (as by a test's dropped connections): the peer is gone for this process.
                if (!c.eof) failures.died(c, "the connection to pid " + c.rank + " was closed");
                continue;
            }
            if (!c.parked && c.link.readable()) {
                frames.read(c);
                any = true;
            }
            if (c.writing() && c.link.writable()) {
                frames.write(c);
                any = true;
            }
            if (c.eof && c.channel.isOpen() && !c.peer.dead && !c.parked && !c.link.readable()) frames.ended(c);
        }
        return any;
    }

    /**
     * Before blocking: asks every linked peer to wake this process by its socket when it writes
     * (or, while this process has bytes for it, reads), then looks again.
     *
     * @return true if nothing came meanwhile (block), false if something did (the flags are cleared)
     */
    private boolean armLinks() {
        for (Conn c : table.linked) if (!c.peer.dead) c.link.arm(c.writing());
        for (Conn c : table.linked) {
            if (c.peer.dead || !c.channel.isOpen()) continue;
            if (!c.parked && c.link.readable() || c.writing() && c.link.writable() || c.eof) {
                for (Conn d : table.linked) d.link.disarm();
                return false;
            }
        }
        return true;
    }

    /** A linked connection's socket is readable: wake-ups (the rings are then polled), or the peer's end. */
    private void wokenUp(Conn c) {
        try {
            if (c.link.drainWakeUps()) return;
        } catch (IOException e) {
            failures.died(c, "the connection to pid " + c.rank + " broke (" + e + "): its JVM died or was killed");
            return;
        }
        c.key.cancel();
        c.eof = true;
        if (c.link.in == null) { // it carried nothing this way: its end says nothing (the other connection's does)
            c.saidBye = true;
            frames.ended(c);
            return;
        }
        if (!c.parked) frames.read(c); // what the peer wrote before its end
        if (!c.peer.dead && c.channel.isOpen() && !c.parked && !c.link.readable()) frames.ended(c);
    }

    /** What a selection does with each ready connection (one object, so that selecting allocates nothing). */
    private final Consumer<SelectionKey> onReady = this::ready;

    private void ready(SelectionKey k) {
        Conn c = (Conn) k.attachment();
        if (!k.isValid()) return;
        if (c.link != null) {
            wokenUp(c);
            return;
        }
        if (k.isReadable()) frames.read(c);
        if (k.isValid() && k.isWritable()) frames.write(c);
    }

    private String stoppedMessage(String waitingFor, int waitedPeer) {
        List<String> quiet = new ArrayList<>();
        if (waitedPeer >= 0) {
            quiet.add(Integer.toString(waitedPeer));
        } else {
            for (int r = 0; r < matching.activeMembers; r++) {
                if (r == rank) continue;
                boolean waits = false;
                for (int c = 0; c < Frame.CHANNELS && !waits; c++) waits = matching.postedHead[c * size + r] != null;
                if (waits || table.peers[r] != null && table.peers[r].writing()) quiet.add(Integer.toString(r));
            }
        }
        return "pid " + (quiet.isEmpty() ? "?" : String.join(", ", quiet)) + " sent nothing this process waited for within "
                + timeoutNanos / 1_000_000 + " ms (" + waitingFor + " of superstep " + superstep + " of section " + matching.activeSection
                + " at pid " + rank
                + "): stopped, frozen or much slower than the deadline allows";
    }
}
