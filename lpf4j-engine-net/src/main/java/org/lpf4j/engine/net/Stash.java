package org.lpf4j.engine.net;

import java.lang.foreign.MemorySegment;

/** A frame that arrived before its receive was posted (kept by {@link Matching} until then); its buffer is native memory, grown as needed and kept while pooled. */
final class Stash {
    int section, channel;
    long length, done;
    MemorySegment bytes;
    /** Where the bytes are kept: grown as needed, kept while the stash is pooled. */
    final org.lpf4j.superstep.NativeBuffer buffer = new org.lpf4j.superstep.NativeBuffer();
    /** A receive posted while this frame was still being read: it takes the bytes when they are complete. */
    Op waiter;
    /** A payload to read from the sender's memory ({@link SingleCopy}): its address there (else 0), its slot, its connection. */
    long remote;
    int remoteSlot;
    Conn remoteFrom;
    Stash next;

    boolean complete() { return done == length; }
}
