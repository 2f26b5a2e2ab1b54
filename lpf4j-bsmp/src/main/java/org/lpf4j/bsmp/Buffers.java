package org.lpf4j.bsmp;

import org.lpf4j.Context;
import org.lpf4j.LpfOutOfMemoryException;
import org.lpf4j.Memslot;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The memory of one {@link Bsmp} object and its four registrations.
 *
 * <ul>
 *   <li>{@code inbox} (global): stages this process's outgoing records during WRITE (the sends'
 *       self-puts land here), then receives the incoming records and is read during READ;</li>
 *   <li>{@code outbox} (global): the outgoing records regrouped per destination, fetched by the
 *       destinations with gets;</li>
 *   <li>{@code metaIn} (global): one {@link Meta} entry per sender;</li>
 *   <li>{@code metaOut} (local): one {@link Meta} entry per destination, the source of the puts
 *       that fill the destinations' {@code metaIn}.</li>
 * </ul>
 * All four live in one shared arena, freed by {@link #release}.
 */
final class Buffers {
    final Arena arena;
    final MemorySegment inbox;
    final MemorySegment outbox;
    final MemorySegment metaIn;
    final MemorySegment metaOut;
    final Memslot inboxSlot;
    final Memslot outboxSlot;
    final Memslot metaInSlot;
    final Memslot metaOutSlot;

    private Buffers(Arena arena, MemorySegment[] segments, Memslot[] slots) {
        this.arena = arena;
        this.inbox = segments[0];
        this.outbox = segments[1];
        this.metaIn = segments[2];
        this.metaOut = segments[3];
        this.inboxSlot = slots[0];
        this.outboxSlot = slots[1];
        this.metaInSlot = slots[2];
        this.metaOutSlot = slots[3];
    }

    /**
     * Allocates the four areas and registers them (three globally, one locally, in this order).
     *
     * @throws LpfOutOfMemoryException if the memory cannot be had; nothing is then allocated or
     *                                 registered
     * @throws RuntimeException        what a registration threw (e.g. a full memory register);
     *                                 the registrations made before it are undone
     */
    static Buffers allocateAndRegister(Context ctx, String call, RecordLayout layout) {
        Arena arena = Arena.ofShared();
        MemorySegment[] segments = new MemorySegment[4];
        long meta = Meta.ENTRY * ctx.nprocs();
        try {
            segments[0] = arena.allocate(layout.capacity(), RecordLayout.ALIGN);
            segments[1] = arena.allocate(layout.capacity(), RecordLayout.ALIGN);
            segments[2] = arena.allocate(meta, RecordLayout.ALIGN);
            segments[3] = arena.allocate(meta, RecordLayout.ALIGN);
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            arena.close();
            throw new LpfOutOfMemoryException(call + ": cannot allocate 2 buffers of " + layout.capacity()
                    + " bytes and 2 of " + meta + " bytes", e);
        }
        Memslot[] slots = new Memslot[4];
        int registered = 0;
        try {
            for (; registered < 3; registered++) slots[registered] = ctx.registerGlobal(segments[registered]);
            slots[3] = ctx.registerLocal(segments[3]);
        } catch (RuntimeException e) {
            for (int i = 0; i < registered; i++) ctx.deregister(slots[i]);
            arena.close();
            throw e;
        }
        return new Buffers(arena, segments, slots);
    }

    /** Deregisters the four slots (in creation order) and frees the memory; never throws. */
    void release(Context ctx) {
        Memslot[] slots = {inboxSlot, outboxSlot, metaInSlot, metaOutSlot};
        for (Memslot slot : slots) {
            try {
                ctx.deregister(slot);
            } catch (RuntimeException ignored) {
                // lpf_deregister never fails; a context that already died may refuse, and its
                // registrations go away with it.
            }
        }
        try {
            arena.close();
        } catch (RuntimeException ignored) {
            // Only possible if another thread still accesses the memory, which the collective
            // use of close() excludes; the memory would then stay allocated.
        }
    }
}
