package org.lpf4j.bsplib;

import java.lang.foreign.MemorySegment;

/**
 * A message taken out of the queue by {@link Bsplib#hpmove()} ({@code bsp_hpmove}): read-only
 * views of its tag and payload inside the layer's receive buffer, made without copying. The views
 * are valid until the next {@link Bsplib#sync()}; reading them later throws or sees other bytes.
 *
 * @param tag     the tag, {@code tagSize} bytes of the superstep it was sent in
 * @param payload the payload
 */
public record BspMessage(MemorySegment tag, MemorySegment payload) {
    /** @return the payload length in bytes */
    public long size() { return payload.byteSize(); }
}
