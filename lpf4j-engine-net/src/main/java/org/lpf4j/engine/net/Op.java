package org.lpf4j.engine.net;

import java.lang.foreign.MemorySegment;

/** One posted send or receive, of one {@link Mesh}. Pooled by {@link Matching}: a sync allocates none once the pool has grown. */
final class Op {
    MemorySegment segment;
    long offset, length, done;
    int channel, section, peer, batch;
    /** Decremented when the op completes. */
    int[] pending;
    Op next;
    /** A receive waiting for a stashed frame still being read. */
    boolean waiting;
}
