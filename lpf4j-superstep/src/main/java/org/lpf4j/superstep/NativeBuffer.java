package org.lpf4j.superstep;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A native buffer that grows (by doubling) and frees its old memory when it does. Transports move
 * only native memory, so everything sent or received goes through one of these unless it can be
 * sent from or received into the user's native segment in place. {@link #atLeast} is O(1) once the
 * buffer is large enough; a growth allocates a new shared arena and closes the old one. Used by
 * one thread at a time.
 */
public final class NativeBuffer implements AutoCloseable {
    private Arena arena;
    private MemorySegment segment = MemorySegment.NULL;

    /** @return memory of at least {@code bytes} bytes (contents not kept across growth) */
    public MemorySegment atLeast(long bytes) {
        if (segment.byteSize() < bytes) {
            long size = Math.max(bytes, Math.max(4096, Math.min(Long.MAX_VALUE / 2, segment.byteSize()) * 2));
            Arena next = Arena.ofShared();
            MemorySegment grown;
            try {
                grown = next.allocate(size, 64);
            } catch (OutOfMemoryError | IllegalArgumentException e) {
                next.close();
                throw e;
            }
            if (arena != null) arena.close();
            arena = next;
            segment = grown;
        }
        return segment;
    }

    @Override
    public void close() {
        if (arena != null) arena.close();
        arena = null;
        segment = MemorySegment.NULL;
    }
}
