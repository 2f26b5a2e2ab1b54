package org.lpf4j.engine.net;

import org.lpf4j.superstep.Transport;
import org.lpf4j.superstep.shm.ProcessMemory;

import java.lang.foreign.MemorySegment;

/**
 * The matching of one {@link Mesh}: which receive a frame arriving from a peer completes. A
 * receive is posted for (channel, peer) and takes that pair's next frame of the active section,
 * in order; a frame that comes first is stashed (in native memory of its own) until its receive
 * comes, unless it is a large put's payload, which {@link FrameIo} leaves parked in its socket.
 * It also pools the ops of posted sends and receives, and the stashes: once the pools have
 * grown, posting and matching allocate nothing. Queue look-ups are O(1) per (channel, peer);
 * used by one thread at a time.
 */
final class Matching {
    private static final int LARGE = Transport.Channel.LARGE.ordinal();
    private final int rank, size;
    /** The section whose frames receives match, and its members (ranks 0 .. members - 1). */
    int activeSection, activeMembers;
    /** Posted receives, per channel and peer: queue heads and tails (intrusive lists of {@link Op}). */
    final Op[] postedHead, postedTail;
    /** Frames that came before their receive, per channel and peer. */
    final Stash[] stashHead, stashTail;
    private Op free;
    /** Stashes no frame uses, kept with their buffers. */
    private Stash freeStash;
    /** Stashed frames per channel, so that {@link #takeAny} finds none in O(1). */
    private final int[] stashed = new int[Frame.CHANNELS];
    private ConnTable table;
    private FrameIo frames;
    private Failures failures;

    /** Reads payloads from the memory of peers on this host ({@link SingleCopy}). */
    private final SingleCopy single;

    Matching(int rank, int size, SingleCopy single) {
        this.rank = rank;
        this.size = size;
        this.single = single;
        this.postedHead = new Op[Frame.CHANNELS * size];
        this.postedTail = new Op[Frame.CHANNELS * size];
        this.stashHead = new Stash[Frame.CHANNELS * size];
        this.stashTail = new Stash[Frame.CHANNELS * size];
    }

    void wire(ConnTable table, FrameIo frames, Failures failures) {
        this.table = table;
        this.frames = frames;
        this.failures = failures;
    }

    private Op op() {
        Op o = free;
        if (o == null) return new Op();
        free = o.next;
        o.next = null;
        return o;
    }

    Op op(int channel, MemorySegment segment, long offset, long length, int peer, int[] pending, int batch) {
        Op o = op();
        o.segment = segment;
        o.offset = offset;
        o.length = length;
        o.done = 0;
        o.channel = channel;
        o.peer = peer;
        o.pending = pending;
        o.batch = batch;
        return o;
    }

    void recycle(Op o) {
        o.segment = null;
        o.pending = null;
        o.waiting = false;
        o.next = free;
        free = o;
    }

    /** Posts a receive of the next frame on {@code channel} from {@code from} into {@code length} bytes at {@code offset} of {@code into}. */
    void receive(int channel, MemorySegment into, long offset, long length, int from, int[] pending, int batch) {
        Conn p = channel == LARGE ? table.peer(from).largeIn : table.peer(from).shared;
        Op o = op(channel, into, offset, length, from, pending, batch);
        pending[batch]++;
        int q = channel * size + from;
        Stash s = stashHead[q];
        // A later section's frame, or one that a receive posted earlier waits for, is not this receive's.
        while (s != null && (s.waiter != null || s.section != activeSection && channel != Frame.CONTROL)) s = s.next;
        if (s != null) {
            if (s.length > length) throw failures.broken(p, "a frame of " + s.length + " bytes on channel " + channel + " for a receive of " + length);
            if (s.complete()) {
                take(q, s, o);
            } else {
                s.waiter = o;
                o.waiting = true;
            }
            return;
        }
        if (p.parked && p.parkedChannel == channel && postedHead[q] == null) {
            // The frame that waits for this receive: its bytes go straight into it from here on.
            if (p.readLength > length) throw failures.broken(p, "a frame of " + p.readLength + " bytes on channel " + channel + " for a receive of " + length);
            p.parked = false;
            p.readOp = o;
            frames.read(p);
            frames.interest(p);
            return;
        }
        if (postedHead[q] == null) postedHead[q] = o; else postedTail[q].next = o;
        postedTail[q] = o;
    }

    /** Copies a complete stashed frame into its receive and completes it. */
    void take(int q, Stash s, Op o) {
        if (s.remote != 0) readRemote(s.remoteFrom, s.remote, s.remoteSlot, o, s.length);
        else if (s.length > 0) MemorySegment.copy(s.bytes, 0, o.segment, o.offset, s.length);
        unstash(q, s);
        o.pending[o.batch]--;
        recycle(o);
    }

    /** Takes {@code s} off its queue and back to the pool (its bytes are invalid afterwards). */
    void unstash(int q, Stash s) {
        Stash prev = null;
        for (Stash c = stashHead[q]; c != null; prev = c, c = c.next) {
            if (c != s) continue;
            if (prev == null) stashHead[q] = c.next; else prev.next = c.next;
            if (stashTail[q] == c) stashTail[q] = prev;
            break;
        }
        stashed[s.channel]--;
        s.bytes = null;
        s.waiter = null;
        s.next = freeStash;
        freeStash = s;
    }

    /**
     * Takes a frame of the active section on {@code channel} that came from any of its members
     * without a receive posted for it (the first complete one found), copying it to
     * {@code offset} of {@code into}; does not wait. O(1) when no frame of the channel is stashed.
     *
     * @param length the most bytes the frame may have
     * @return the member it came from, or -1 if none has come
     */
    int takeAny(int channel, MemorySegment into, long offset, long length) {
        if (stashed[channel] == 0) return -1;
        for (int r = 0; r < activeMembers; r++) {
            if (r == rank) continue;
            int q = channel * size + r;
            for (Stash s = stashHead[q]; s != null; s = s.next) {
                if (s.section != activeSection || s.waiter != null) continue;
                if (!s.complete()) break;
                if (s.length > length) throw failures.broken(table.peers[r].shared, "a frame of " + s.length + " bytes on channel " + channel + " for " + length);
                if (s.length > 0) MemorySegment.copy(s.bytes, 0, into, offset, s.length);
                unstash(q, s);
                return r;
            }
        }
        return -1;
    }

    /** @return a new stash for a frame from rank {@code from} that came before its receive, at the end of its queue */
    Stash stash(int from, int channel, int section, long length) {
        int q = channel * size + from;
        Stash s = freeStash;
        if (s == null) s = new Stash(); else freeStash = s.next;
        s.next = null;
        s.waiter = null;
        s.remote = 0;
        s.remoteFrom = null;
        s.done = 0;
        s.section = section;
        s.channel = channel;
        s.length = length;
        s.bytes = length == 0 ? MemorySegment.NULL : s.buffer.atLeast(length);
        if (stashHead[q] == null) stashHead[q] = s; else stashTail[q].next = s;
        stashTail[q] = s;
        stashed[channel]++;
        return s;
    }

    /**
     * A frame of {@link SingleCopy}'s came from the peer of {@code c}: an acknowledgement completes
     * a send of this process's; a descriptor is read into the receive of its payload if that is
     * posted, else stashed as that payload's frame until its receive comes.
     */
    void remote(Conn c, Stash s) {
        int q = s.channel * size + c.rank;
        if (s.channel == Frame.REMOTE_DONE) {
            int slot = s.section;
            unstash(q, s);
            if (!single.acknowledged(slot, c.rank)) throw failures.broken(c, "an acknowledgement of a single-copy send " + slot + " it was not sent");
            return;
        }
        int channel = s.length == SingleCopy.DESCRIPTOR ? SingleCopy.channel(s.bytes) : -1, section = s.section, slot = 0;
        long address = 0, length = -1;
        if (channel >= 0) {
            slot = SingleCopy.slot(s.bytes);
            address = SingleCopy.address(s.bytes);
            length = SingleCopy.length(s.bytes);
        }
        unstash(q, s);
        if (channel < 0 || SingleCopy.frameOf(channel) != s.channel || channel != LARGE && channel != Transport.Channel.REPLY.ordinal()
                || address == 0 || length < 0 || length > Frame.MAX_LENGTH || c.link == null) {
            throw failures.broken(c, "a malformed single-copy descriptor (channel " + channel + ", length " + length + ")");
        }
        q = channel * size + c.rank;
        Op o = postedHead[q];
        if (o != null && section == activeSection) {
            if (length > o.length) throw failures.broken(c, "a frame of " + length + " bytes on channel " + channel + " for a receive of " + o.length);
            postedHead[q] = o.next;
            if (postedHead[q] == null) postedTail[q] = null;
            o.next = null;
            readRemote(c, address, slot, o, length);
            o.done = length;
            o.pending[o.batch]--;
            recycle(o);
            return;
        }
        Stash r = stash(c.rank, channel, section, 0); // no bytes here: they stay in the sender's memory
        r.length = length;
        r.done = length;
        r.remote = address;
        r.remoteSlot = slot;
        r.remoteFrom = c;
    }

    /** Reads a payload from the memory of {@code c}'s peer into receive {@code o} and acknowledges it (the caller completes {@code o}); the peer dies if that fails. */
    private void readRemote(Conn c, long address, int slot, Op o, long length) {
        String failed = single.read(c.link, address, o.segment, o.offset, length);
        if (failed != null) {
            // Either way the sender is given up as a dead one is (its connections closed, the news
            // spread), so that no process waits for it; the words say which it was.
            failures.died(c, "pid " + c.rank + "'s payload could not be read: " + failed + (single.lastErrno == ProcessMemory.EFAULT
                    ? "; its memory is gone (its section ended after a failure, or it freed the memory during the sync)"
                    : "; its JVM died or was killed"));
            throw new Transport.Stopped(c.peer.death);
        }
        frames.send(Frame.REMOTE_DONE, slot, MemorySegment.NULL, 0, 0, c.rank, single.frames, 0);
    }

    /** Frees the stashes' native memory, pooled or in use. */
    void close() {
        for (Stash st = freeStash; st != null; st = st.next) st.buffer.close();
        for (Stash head : stashHead) for (Stash st = head; st != null; st = st.next) st.buffer.close();
    }
}
